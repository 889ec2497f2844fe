// The signed-in frame: navigation by the names the console's contract gives them, the page, and "Sign out".
import { Link, Redirect, Route, Switch } from 'wouter';
import { useLiveUpdates } from '../api/use-live-updates';
import type { KeyKind } from '../auth/key-store';
import { Deposits } from '../pages/deposits/Deposits';
import { Generations } from '../pages/generations/Generations';
import { Keys } from '../pages/keys/Keys';
import { Overview } from '../pages/overview/Overview';
import { Playground } from '../pages/playground/Playground';
import { TaskPage } from '../pages/task/TaskPage';
import { Usage } from '../pages/usage/Usage';
import { Webhooks } from '../pages/webhooks/Webhooks';
import './shell.css';

interface Page {
  path: string;
  name: string;
  agentsOnly?: boolean;
  component: () => React.JSX.Element;
}

const pages: Page[] = [
  { path: '/overview', name: 'Overview', component: Overview },
  { path: '/generations', name: 'Generations', component: Generations },
  { path: '/playground', name: 'Playground', component: Playground },
  { path: '/keys', name: 'Keys', component: Keys },
  { path: '/usage', name: 'Usage', component: Usage },
  { path: '/webhooks', name: 'Webhooks', component: Webhooks },
  { path: '/deposits', name: 'Deposits', agentsOnly: true, component: Deposits },
];

interface Props {
  kind: KeyKind;
  onSignOut: () => void;
}

export function Shell({ kind, onSignOut }: Props) {
  const shown = pages.filter((page) => !page.agentsOnly || kind === 'agent');
  const live = useLiveUpdates();
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
        <span className={live ? 'live on' : 'live'} role="status" title="The account's event stream">
          {live ? 'Live' : 'Connecting…'}
        </span>
        <button type="button" className="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="content" className="content" tabIndex={-1}>
        <Switch>
          <Route path="/generations/:id" component={TaskPage} />
          {shown.map((page) => (
            <Route key={page.path} path={page.path}>
              <page.component />
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
