/** GET /v1/voices: the voices of an engine. */

export interface Voice {
  id: string;
  name: string;
  languages: string[];
  engine: string;
}

export interface VoicesResponse {
  engine: string;
  voices: Voice[];
}
