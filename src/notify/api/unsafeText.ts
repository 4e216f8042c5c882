// The management API's unsafe-text check lives in the shared kit (http/api/unsafeText.ts); this
// name stays for the notify code and tests that import it from here.
export { findUnsafeText, unsafeTextProblem } from '../../http/api/unsafeText.js';
