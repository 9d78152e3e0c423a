/** Where a subcommand writes; the bin passes the process streams, tests pass buffers. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}
