// Findings of the fuzzer that are reported but not yet fixed, each matched as narrowly as possible so that anything
// else still fails the run. Every entry names the failing request and the proposed fix; delete it with the fix.
import type { FuzzRequest } from './requests.js';

export interface KnownIssue {
  id: string;
  summary: string;
  matches(request: FuzzRequest, status: number, problem: string): boolean;
}

export const KNOWN_ISSUES: KnownIssue[] = [];
