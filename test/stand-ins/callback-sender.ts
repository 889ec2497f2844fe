// How the stand-ins deliver an upstream's completion callback: one POST of the exact body bytes they signed,
// recording what the gateway answered.
export interface SentCallback {
  url: string;
  status: number;
}

export async function sendCallback(
  url: string,
  headers: Record<string, string>,
  body: string,
  sent: SentCallback[],
): Promise<void> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    sent.push({ url, status: response.status });
  } catch {
    sent.push({ url, status: 0 });
  }
}
