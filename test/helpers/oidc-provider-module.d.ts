// oidc-provider ships no type declarations; the test harness only needs a loose shape.
declare module 'oidc-provider' {
  const Provider: new (issuer: string, configuration: Record<string, unknown>) => any
  export default Provider
  export const errors: Record<string, new (...args: any[]) => Error>
}
