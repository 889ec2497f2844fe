// Where the API key lives: this tab's sessionStorage, or localStorage only when "Remember on this device" is ticked.
const storageName = 'gateway-console-api-key';

export type KeyKind = 'agent' | 'developer';

export const keyKind = (key: string): KeyKind => (key.startsWith('rf_') ? 'agent' : 'developer');

export function storedKey(): string | undefined {
  return sessionStorage.getItem(storageName) ?? localStorage.getItem(storageName) ?? undefined;
}

export function storeKey(key: string, remember: boolean): void {
  forgetKey();
  (remember ? localStorage : sessionStorage).setItem(storageName, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(storageName);
  localStorage.removeItem(storageName);
}
