// A GLB output in <model-viewer> (Google's web component: orbit, zoom, one shared WebGL context for the page). Its
// code, three.js with it, loads only when a 3D output is shown, so the first page stays light.
import { useEffect, useRef, useState } from 'react';
import './tasks.css';

type ViewerError = CustomEvent<{ type?: string; sourceError?: { message?: string } }>;

/** model-viewer's error events carry `detail.type` (`loadfailure`, `webglcontextlost`, …) and the error behind it. */
function errorType(event: Event): string {
  const detail = (event as ViewerError).detail;
  return [detail?.type ?? 'error', detail?.sourceError?.message].filter(Boolean).join(': ');
}

export function ModelPreview({ url, label }: { url: string; label: string }) {
  const container = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string>();
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    let viewer: HTMLElement | undefined;
    let cancelled = false;
    import('@google/model-viewer').then(
      () => {
        if (cancelled) return;
        viewer = document.createElement('model-viewer');
        viewer.setAttribute('src', url);
        viewer.setAttribute('alt', label);
        viewer.setAttribute('camera-controls', '');
        viewer.addEventListener('error', (event) => setFailed(errorType(event)));
        element.append(viewer);
      },
      () => setFailed('the viewer did not load'),
    );
    return () => {
      cancelled = true;
      viewer?.remove();
    };
  }, [url, label]);
  return (
    <div className="model-preview" ref={container}>
      {failed && (
        <a href={url} download>
          The 3D viewer could not show it ({failed}): download the model
        </a>
      )}
    </div>
  );
}
