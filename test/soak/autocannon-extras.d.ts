// Parts of autocannon's API the soak tests use beyond bench/autocannon.d.ts (merged with it).
declare module 'autocannon' {
  interface AutocannonRequest {
    onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
  }
  interface AutocannonResult {
    statusCodeStats?: Record<string, { count: number }>
  }
}
