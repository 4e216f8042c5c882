// The list of lines a pasted list could not use, next to the field it belongs to.
import type { BadLine } from './parseLines';

export function BadLines({ id, bad }: { id: string; bad: BadLine[] }) {
  if (!bad.length) return null;
  return (
    <div id={id} class="field-error" role="alert">
      {bad.length} line{bad.length === 1 ? '' : 's'} not valid:
      <ul class="bad-lines">
        {bad.slice(0, 200).map((b) => (
          <li key={`${b.line}-${b.text}`}>
            line {b.line}: <code>{b.text}</code> {b.problem}
          </li>
        ))}
        {bad.length > 200 && <li>… and {bad.length - 200} more</li>}
      </ul>
    </div>
  );
}
