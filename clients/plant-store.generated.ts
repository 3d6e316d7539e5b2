// Generated from openapi.yaml by openapi-typescript (npm run client:generate). Do not edit:
// change openapi.yaml and run the script again.

export interface paths {
    "/plants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a plant
         * @description Creates a new plant in the store. Requires an access token with the scope `plants/write`.
         *
         *     Limits: the body is at most 16384 bytes and nests at most 64 levels; `name` is 1 to 200
         *     characters and `tag` 1 to 64 (after NFC normalization), with no control characters and no
         *     invisible or bidi formatting characters (see the Plant schema); `id` is any integer in the
         *     int64 range, kept exact (it is read from the JSON text, so ids above 2^53 are not
         *     rounded). Integral literals such as `1.0` or `1e2` are integers; fields other than `id`,
         *     `name` and `tag` are ignored and not stored.
         */
        post: operations["createPlant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        Plant: {
            /** @description The name of the plant. Normalized to Unicode NFC before it is checked and stored, so canonically equivalent spellings (`Café` precomposed or with a combining accent) are one plant and the stored, answered text is the NFC form; the length is counted after normalization. Refused: control characters (tab and newline too), lone surrogates, line and paragraph separators (U+2028, U+2029) and invisible format characters (Unicode category Cf: bidi overrides and isolates, zero-width space, word joiner, BOM, soft hyphen), except where one is part of the writing: ZWNJ or ZWJ between two letters or marks that are not Latin, Greek or Cyrillic (Arabic-script and Indic spelling), ZWJ between two emoji (`👩🏽‍💻`, `🏳️‍🌈`), and the tags of a subdivision flag (🏴 + region + cancel tag). */
            name: string;
            /** @description Tag to specify the type. The same characters as `name` are allowed, normalized the same way. */
            tag?: string;
        };
        NewPlant: components["schemas"]["Plant"] & {
            /**
             * Format: int64
             * @description Identification number of the plant
             */
            id: number | bigint;
        };
        Error: {
            /**
             * Format: int32
             * @description The HTTP status of the answer
             */
            error: number;
            /** @description What went wrong, for a human; never internal details */
            message: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description RFC 6750 challenge, e.g. `Bearer realm="plant-store", error="invalid_token", error_description="Token has expired"` */
        WwwAuthenticate: string;
        /** @description Seconds to wait before retrying */
        RetryAfter: number;
        /** @description Always `no-store` */
        CacheControl: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    createPlant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Plant to add to the store */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": 1,
                 *       "name": "Fern",
                 *       "tag": "indoor"
                 *     }
                 */
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description plant response (created, or an identical earlier create replayed) */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "Fern",
                     *       "tag": "indoor"
                     *     }
                     */
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /** @description unexpected error; the body is not valid JSON, not an object, or a field is missing, mistyped or out of bounds (the message names the field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "id must be between -9223372036854775808 and 9223372036854775807"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is missing, malformed, expired, not yet valid, issued in the future, living longer than 24 hours, wrongly signed, or from another issuer or audience */
            401: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "Token has expired"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The token is valid but lacks the scope `plants/write` */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "Token lacks the scope \"plants/write\""
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A plant with this id is stored with a different name or tag; it is left unchanged */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 409,
                     *       "message": "A different plant with id 1 already exists"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than 16384 bytes */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Content-Type is missing or is not `application/json` (parameters such as charset are allowed) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An unexpected fault; it is logged with the request id and the body says nothing internal */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "Internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The store (or the token issuer) is throttled or unreachable after bounded retries; retrying the identical request is safe */
            503: {
                headers: {
                    "Retry-After": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
