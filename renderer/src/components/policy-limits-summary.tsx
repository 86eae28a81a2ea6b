/** One line under the editor's head: which declared limits this host enforces and which it does not. */
import type { DoctorReport } from '../../../app/contract/doctor';
import { describeLimits } from '../../../app/policy/defaults';
import { type Limits, limitNames } from '../../../app/policy/policy-schema';

export function PolicyLimitsSummary(props: { limits: Limits; doctor: DoctorReport | undefined }) {
  const declared = limitNames.filter((n) => props.limits[n] !== undefined);
  if (declared.length === 0) {
    return (
      <p className="hint">
        No resource limits declared; the defaults apply: {describeLimits(props.limits).join(', ')}.
      </p>
    );
  }
  if (!props.doctor)
    return <p className="hint">Declared limits: {declared.join(', ')} (host not probed yet).</p>;
  const enforced = declared.filter((n) => props.doctor?.limits[n]?.enforced);
  const not = declared.filter((n) => !props.doctor?.limits[n]?.enforced);
  return (
    <p className={not.length > 0 ? 'notice notice-warn' : 'hint'} data-limits-summary>
      {enforced.length > 0 && <>Enforced on this host: {enforced.join(', ')}. </>}
      {not.length > 0 && <>Declared but not enforced here: {not.join(', ')}.</>}
    </p>
  );
}
