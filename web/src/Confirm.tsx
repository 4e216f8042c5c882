// A button that asks once more, in place, before doing something that cannot be undone.
import { useState } from 'preact/hooks';

export function ConfirmButton({ label, question, confirmLabel, onConfirm, danger = true }: { label: string; question: string; confirmLabel: string; onConfirm(): Promise<void> | void; danger?: boolean }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking)
    return (
      <button type="button" class={danger ? 'danger' : ''} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span role="alertdialog" aria-label={question} class="row">
      <span>{question}</span>
      <button
        type="button"
        class={danger ? 'danger' : 'primary'}
        disabled={busy}
        ref={(el) => el?.focus()}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
