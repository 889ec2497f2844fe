// One chain's deposit address: the address to copy, and as a QR code for a phone wallet.
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';

/** The address's QR code as a data URL, once drawn. */
function useQrCode(address: string): string | undefined {
  const [drawn, setDrawn] = useState<{ address: string; url: string }>();
  useEffect(() => {
    let current = true;
    QRCode.toDataURL(address, { margin: 1, width: 176 }).then(
      (url) => current && setDrawn({ address, url }),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [address]);
  return drawn?.address === address ? drawn.url : undefined;
}

export function DepositAddress({ chain, address, asset }: { chain: string; address: string; asset: string }) {
  const [copied, setCopied] = useState<string>();
  const qr = useQrCode(address);
  return (
    <li className="deposit-address" aria-label={`${chain} deposit address`}>
      {qr && <img src={qr} width={176} height={176} alt={`QR code of the ${chain} address ${address}`} />}
      <div>
        <h3>{chain}</h3>
        <p className="muted">
          Send {asset} on {chain} to:
        </p>
        <p className="mono">{address}</p>
        <button
          type="button"
          className="secondary"
          onClick={() =>
            navigator.clipboard.writeText(address).then(
              () => setCopied('Copied.'),
              () => setCopied('The browser did not allow copying: select the address.'),
            )
          }
        >
          Copy address
        </button>{' '}
        <span role="status" className="muted">
          {copied}
        </span>
      </div>
    </li>
  );
}
