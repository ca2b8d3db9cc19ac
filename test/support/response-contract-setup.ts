// Fails the test during which (or the file after whose hooks) a response contradicted openapi/openapi.json; the check
// itself is installed by startTestApp (test/support/response-contract.ts).
import { afterAll, afterEach, expect } from 'vitest';
import { takeContractMismatches } from './response-contract.js';

afterEach(() => {
  expect(takeContractMismatches(), 'responses that contradict openapi/openapi.json').toEqual([]);
});

afterAll(() => {
  expect(takeContractMismatches(), 'responses that contradict openapi/openapi.json').toEqual([]);
});
