// Imported first by the CLI, before any module that loads the `debug` package. ethereumjs creates
// a `debug` logger in every trie and state manager it constructs (tens per mined block), and
// `debug` asks the OS whether stderr is a terminal (an isatty system call) for each logger whose
// colours its options leave open: 1.7% of automine's CPU. `debug` reads its options from
// DEBUG_* variables once, when it loads (worker threads get this environment too), so deciding
// here gives every logger the answer it would have found, without the call.
import { isatty } from 'node:tty';

process.env.DEBUG_COLORS ??= isatty(process.stderr.fd) ? 'yes' : 'no';
