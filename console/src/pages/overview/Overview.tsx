// The Overview: the balance, 30 days of spend, and the latest tasks with their outputs.
import { Balance } from './Balance';
import { LatestTasks } from './LatestTasks';
import { SpendChart } from './SpendChart';
import './overview.css';

export function Overview() {
  return (
    <>
      <h1>Overview</h1>
      <div className="overview-grid">
        <Balance />
        <SpendChart />
      </div>
      <LatestTasks />
    </>
  );
}
