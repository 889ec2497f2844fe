// The console is served by the api process at /console (src/api/console.ts): fingerprinted assets, no inline script.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    modulePreload: { polyfill: false },
    sourcemap: false,
    // The 3D viewer (model-viewer with three.js, ≈ 1 MB) is its own chunk, loaded only when a GLB output is shown.
    chunkSizeWarningLimit: 1_100,
  },
  server: { proxy: { '/api': 'http://localhost:3000', '/files': 'http://localhost:3000' } },
});
