/** The AI-client picker shared by the Import and Clients screens (its label is the caller's). */
import { type ClientId, clientFormats, clientIds } from '../../../app/clients/client-formats';

export function ClientSelect(props: {
  id: string;
  value: ClientId;
  onChange: (client: ClientId) => void;
}) {
  return (
    <select
      id={props.id}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value as ClientId)}
    >
      {clientIds.map((c) => (
        <option key={c} value={c}>
          {clientFormats[c].label}
        </option>
      ))}
    </select>
  );
}
