// Type of the one solc-js entry point the compile script uses (solc ships no declarations).
declare module 'solc' {
  const solc: { compile(input: string): string; version(): string };
  export default solc;
}
