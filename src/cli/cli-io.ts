import { createLogger, type Logger } from '../observability/logger.ts';

/** Where a subcommand writes; the bin passes the process streams, tests pass buffers. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** A logger that writes text lines to the command's stderr. */
export function stderrLogger(io: CliIo): Logger {
  return createLogger({
    type: 'text',
    level: 'info',
    noTime: true,
    sink: {
      write: (text) => {
        io.stderr(text);
      },
    },
  });
}
