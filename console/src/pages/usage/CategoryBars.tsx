// Cost by model, type or key as horizontal bars, largest first; each bar's figure is written beside it.
import { formatUsd } from '../../format';

export function CategoryBars({ items }: { items: { label: string; cost: number }[] }) {
  const sorted = [...items].sort((a, b) => b.cost - a.cost);
  const largest = Math.max(...sorted.map((item) => item.cost), 0);
  return (
    <ul className="category-bars">
      {sorted.map((item) => (
        <li key={item.label}>
          <span className="category-label">{item.label}</span>
          <span className="category-track" aria-hidden="true">
            <span className="category-fill" style={{ width: largest > 0 ? `${(item.cost / largest) * 100}%` : '0' }} />
          </span>
          <span className="category-figure">{formatUsd(item.cost)}</span>
        </li>
      ))}
    </ul>
  );
}
