// The console's entry point (console/index.html loads it; no inline script, for the strict CSP).
// The shared styles come first: each page's own, imported by the page, come after them and may refine them.
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
