// The part of autocannon's programmatic API the harness uses (the package ships no types).
declare module 'autocannon' {
  export interface AutocannonRequest {
    method?: string
    path?: string
    headers?: Record<string, string>
    setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest
  }
  export interface AutocannonOptions {
    url: string
    connections?: number
    pipelining?: number
    duration?: number
    amount?: number
    overallRate?: number
    timeout?: number
    headers?: Record<string, string>
    requests?: AutocannonRequest[]
    expectBody?: string
  }
  export interface Histogram { average: number, mean: number, p50: number, p90: number, p99: number, max: number, total: number }
  export interface AutocannonResult {
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    '4xx': number
    '5xx': number
    latency: Histogram
    requests: Histogram & { sent: number }
  }
  export interface Instance extends PromiseLike<AutocannonResult> {
    stop (): void
  }
  function autocannon (options: AutocannonOptions): Instance
  export default autocannon
}
