// Types of describe-error.js (plain JavaScript served to the browser as is), for the tests.
export interface RunError {
  readonly errorMessage?: string;
  readonly errorKind?: string;
  readonly errorDetail?: {
    readonly errorClass?: string;
    readonly retryAfterMs?: number;
    readonly httpStatus?: number;
  };
  readonly retryAfterMs?: number;
}
export interface DescribedError {
  readonly title: string;
  readonly hint: string;
  readonly detail: string;
}

export declare function formatDuration(milliseconds: number): string;
export declare function retryAfterFromText(text: string): number | undefined;
export declare function describeRunError(error: RunError): DescribedError;
export declare function describeConnectError(
  error: { message?: string; details?: { code?: string }; retryAfterMs?: number } | undefined,
): { message: string; askToken: boolean };
