// The names this machine answers to itself: an address on one of them at our own port is ours, whatever the request.

export const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];

/** `host[:port]` as URL writes it (lower case, no default port), or undefined for what is not one. */
export const normalHost = (authority: string) =>
  URL.canParse(`http://${authority}`) ? new URL(`http://${authority}`).host : undefined;

/** Each loopback name at `port`, as `host:port`. */
export const loopbackHosts = (port: string | number) => loopbackNames.map((name) => normalHost(`${name}:${port}`)!);

/** The same origin (with any path) under each loopback name when `base` names one; else `base` alone. */
export function loopbackAliases(base: string): string[] {
  const url = new URL(base);
  if (!loopbackNames.includes(url.hostname)) return [base];
  const rest = base.slice(url.origin.length);
  return loopbackHosts(url.port || (url.protocol === 'https:' ? 443 : 80)).map(
    (host) => `${url.protocol}//${host}${rest}`,
  );
}
