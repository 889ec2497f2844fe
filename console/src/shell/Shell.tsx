// The signed-in frame: navigation by the names the console's contract gives them, the page, and "Sign out".
import { Link, Redirect, Route, Switch } from 'wouter';
import type { KeyKind } from '../auth/key-store';
import { Overview } from '../pages/overview/Overview';
import { ComingSoon } from '../pages/ComingSoon';

interface Page {
  path: string;
  name: string;
  agentsOnly?: boolean;
}

const pages: Page[] = [
  { path: '/overview', name: 'Overview' },
  { path: '/generations', name: 'Generations' },
  { path: '/playground', name: 'Playground' },
  { path: '/keys', name: 'Keys' },
  { path: '/usage', name: 'Usage' },
  { path: '/webhooks', name: 'Webhooks' },
  { path: '/deposits', name: 'Deposits', agentsOnly: true },
];

interface Props {
  kind: KeyKind;
  onSignOut: () => void;
}

export function Shell({ kind, onSignOut }: Props) {
  const shown = pages.filter((page) => !page.agentsOnly || kind === 'agent');
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="top-bar">
        <span className="brand">Generation Gateway</span>
        <nav aria-label="Console">
          <ul>
            {shown.map((page) => (
              <li key={page.path}>
                <Link href={page.path} className={(active) => (active ? 'active' : '')}>
                  {page.name}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" className="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="content" className="content" tabIndex={-1}>
        <Switch>
          <Route path="/overview" component={Overview} />
          {shown
            .filter((page) => page.path !== '/overview')
            .map((page) => (
              <Route key={page.path} path={page.path}>
                <ComingSoon title={page.name} />
              </Route>
            ))}
          <Route>
            <Redirect to="/overview" replace />
          </Route>
        </Switch>
      </main>
    </div>
  );
}
