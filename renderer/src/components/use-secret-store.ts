/**
 * Where this core keeps secret values, for the places that set them: the OS keychain (the app)
 * or an unencrypted file (`warden serve`). Undefined until the core has said, or if it cannot.
 */
import { useEffect, useState } from 'react';
import { useWardenApi } from '../store/store-context';

export type SecretPlace = { encrypted: true } | { encrypted: false; store: string };

export function useSecretPlace(): SecretPlace | undefined {
  const api = useWardenApi();
  const [place, setPlace] = useState<SecretPlace>();
  useEffect(() => {
    let live = true;
    api['secrets.status']({}).then(
      (s) => {
        if (!live || typeof s?.encrypted !== 'boolean') return;
        setPlace(s.encrypted ? { encrypted: true } : { encrypted: false, store: s.store });
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api]);
  return place;
}
