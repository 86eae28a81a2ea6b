/**
 * Limits: memory, processes, CPU seconds, open files, wall time, each with whether this host
 * actually enforces it (from `warden doctor`) and whether the user accepts it as best-effort.
 */
import { useId } from 'react';
import type { DoctorReport } from '../../../app/contract/doctor';
import { DEFAULT_LIMITS } from '../../../app/policy/defaults';
import { limitNames } from '../../../app/policy/policy-schema';
import { limitLabels } from './limit-labels';
import { type PolicyTabProps, section } from './policy-tab-props';
import { usePolicyLocks } from './use-policy-locks';

const labels = limitLabels;

export function PolicyLimitsTab(props: PolicyTabProps & { doctor: DoctorReport | undefined }) {
  const id = useId();
  const locks = usePolicyLocks();
  const [limits, setLimits] = section(props, 'limits');
  return (
    <div className="tab-body">
      <table className="limits">
        <caption className="visually-hidden">Resource limits</caption>
        <thead>
          <tr>
            <th scope="col">Limit</th>
            <th scope="col">Value</th>
            <th scope="col">Enforced on this host</th>
            <th scope="col">Best effort</th>
          </tr>
        </thead>
        <tbody>
          {limitNames.map((name) => {
            const support = props.doctor?.limits[name];
            const value = limits[name];
            const error = props.errors[`policy.limits.${name}`] ?? locks.limit(name, value);
            const notEnforced = value !== undefined && support && !support.enforced;
            return (
              <tr key={name} data-limit={name}>
                <th scope="row">
                  <label htmlFor={`${id}-${name}`}>{labels[name]}</label>
                </th>
                <td>
                  <input
                    id={`${id}-${name}`}
                    type="number"
                    min={1}
                    value={value ?? ''}
                    placeholder={
                      DEFAULT_LIMITS[name] === undefined
                        ? 'no limit'
                        : `default ${DEFAULT_LIMITS[name]} (best-effort)`
                    }
                    aria-invalid={error ? true : undefined}
                    onChange={(e) => {
                      const raw = e.target.value;
                      setLimits({ [name]: raw === '' ? undefined : Math.trunc(Number(raw)) });
                    }}
                  />
                  {error && <p className="field-error">{error}</p>}
                </td>
                <td className={support?.enforced ? 'ok' : 'warn'}>
                  {support === undefined
                    ? 'unknown'
                    : `${support.enforced ? 'Yes' : 'No'}: ${support.how}`}
                  {notEnforced && !limits.bestEffort.includes(name) && (
                    <p className="field-error">
                      Declared but not enforceable here: launches will be refused unless you accept
                      it as best effort.
                    </p>
                  )}
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`Accept ${labels[name]} as best effort`}
                    checked={limits.bestEffort.includes(name)}
                    disabled={!!locks.bestEffort() && !limits.bestEffort.includes(name)}
                    title={locks.bestEffort()}
                    onChange={(e) =>
                      setLimits({
                        bestEffort: e.target.checked
                          ? [...limits.bestEffort, name]
                          : limits.bestEffort.filter((n) => n !== name),
                      })
                    }
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="field">
        <label htmlFor={`${id}-idle`}>Stop after idle (seconds)</label>
        <input
          id={`${id}-idle`}
          type="number"
          min={1}
          value={props.policy.idleTimeoutSeconds}
          onChange={(e) =>
            props.onChange({
              ...props.policy,
              idleTimeoutSeconds: Math.trunc(Number(e.target.value)),
            })
          }
        />
      </div>
    </div>
  );
}
