// The pages of issue 38 not built yet: a heading and a note, so navigation works end to end.
export function ComingSoon({ title }: { title: string }) {
  return (
    <section>
      <h1>{title}</h1>
      <p className="muted">Coming soon.</p>
    </section>
  );
}
