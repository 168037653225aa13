import type { VerificationResult } from './api';
import { describeChecks, REASON, SUB_STATUS, VERDICT } from './words';

/** One verification result laid out for people: verdict, score, why, and the nine checks in words. */
export function ResultCard({ result }: { result: VerificationResult }) {
  return (
    <article class={`result ${result.status}`} aria-label={`Result for ${result.email}`}>
      <h3 class="mono">{result.email}</h3>
      <p class="verdict">
        <strong data-status={result.status}>{VERDICT[result.status]}</strong> · score {result.score}/100
        {result.confidence !== null && ` · ${result.confidence}% confidence`}
      </p>
      <p>
        {REASON[result.reason] ?? result.reason}
        {result.subStatus && ` Detail: ${SUB_STATUS[result.subStatus] ?? result.subStatus}.`}
        <span class="code">
          {' '}
          ({result.reason}
          {result.subStatus ? ` / ${result.subStatus}` : ''})
        </span>
      </p>
      {result.suggestion && <p>Did you mean {result.suggestion}?</p>}
      <details>
        <summary>The nine checks</summary>
        <ul class="checks">
          {describeChecks(result.checks).map(([title, finding, passed]) => (
            <li key={title} class={passed === null ? 'neutral' : passed ? 'pass' : 'fail'}>
              <strong>{title}</strong>{' '}
              <span class="visually-hidden">{passed === null ? '' : passed ? '(good)' : '(warning)'}</span>
              {finding}
            </li>
          ))}
        </ul>
      </details>
    </article>
  );
}
