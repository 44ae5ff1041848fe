declare module '@echogarden/espeak-ng-emscripten' {
  const createModule: () => Promise<unknown>;
  export default createModule;
}
