/** Seconds left until an automatic refusal, updated every second. */
import { useEffect, useState } from 'react';
import { secondsLeft } from './time-left';

export function Countdown(props: { until: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const left = secondsLeft(props.until, now);
  return (
    <span className="countdown" data-seconds-left={left}>
      {left > 0 ? `refused automatically in ${left} s` : 'refusing…'}
    </span>
  );
}
