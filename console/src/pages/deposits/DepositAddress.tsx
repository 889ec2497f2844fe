// One chain's deposit address: the address to copy, and as a QR code for a phone wallet.
import { useQuery } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useState } from 'react';

export function DepositAddress({ chain, address, asset }: { chain: string; address: string; asset: string }) {
  const [copied, setCopied] = useState<string>();
  const qr = useQuery({
    queryKey: ['qr', address],
    queryFn: () => QRCode.toDataURL(address, { margin: 1, width: 176 }),
    staleTime: Infinity,
  });
  return (
    <li className="deposit-address" aria-label={`${chain} deposit address`}>
      {qr.data && <img src={qr.data} width={176} height={176} alt={`QR code of the ${chain} address ${address}`} />}
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
