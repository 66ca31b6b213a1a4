/** A message announced to screen readers as it appears; nothing when empty. */
export function ErrorText({ text }: { text: string }) {
  if (text === '') return null;
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}
