declare module "../build/server/index.js" {
  const build: unknown;
  export = build;
}
