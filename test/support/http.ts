import request from 'supertest';

export type Json = Record<string, any>;

/** INPUT_DATA as real clients send it: {"operation":{"Details":{...}}}. */
export function inputData(details: Json): string {
  return JSON.stringify({ operation: { Details: details } });
}

/** A form body labelled text/json, as the Python clients send it. */
export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export function api(baseUrl: string) {
  return request(baseUrl);
}
