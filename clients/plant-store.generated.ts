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
        /**
         * List plants
         * @description Lists the plants in the store, a page at a time. Requires an access token with the scope
         *     `plants/read`.
         *
         *     The body is a JSON array of `PlantListItem`: each plant's `name`, its `tag` when it has
         *     one, and its `id`. The specification's `Plant` has no `id`, but its schema allows further
         *     properties, so an item is a `Plant` that carries the `id` a client needs to delete it,
         *     written as the exact int64 JSON number `NewPlant` takes (`9223372036854775807`, never a
         *     rounded `9223372036854776000`): a client that needs ids above 2^53 reads the number's
         *     source text, as a JSON parser with big-integer support does.
         *
         *     The next page is announced in the `Link` header, `</plants?limit=20&cursor=...>;
         *     rel="next"` (RFC 8288, a path-absolute reference); the last page has none. Follow it as
         *     given: its `cursor` is opaque and belongs to this API's table and to its `limit`. Following
         *     it from the first page to the last lists every plant present throughout the walk exactly
         *     once, even while other plants are created and deleted; one created or deleted during the
         *     walk may or may not appear. A page may hold fewer plants than `limit`, and may be empty,
         *     with a next link still to follow.
         *
         *     The order is whatever the store gives (DynamoDB's order of its keys): the same for every
         *     walk of an unchanged table, and no order a client may rely on (not by id, name or time).
         *
         *     A list evaluates no precondition: `If-Match` or `If-None-Match` is a `400` naming the
         *     header.
         */
        get: operations["listPlants"];
        put?: never;
        /**
         * Create a plant
         * @description Creates a new plant in the store. Requires an access token with the scope `plants/write`.
         *
         *     Limits: the body is at most 16384 bytes and nests at most 64 levels; `name` is 1 to 200
         *     code points and `tag` 1 to 64, counted as sent, with no control characters and no
         *     invisible or bidi formatting characters (see the Plant schema); `id` is any integer in the
         *     int64 range, kept exact (it is read from the JSON text, so ids above 2^53 are not
         *     rounded). Integral literals such as `1.0` or `1e2` are integers; fields other than `id`,
         *     `name` and `tag` are ignored and not stored, except that a member named `__proto__`
         *     anywhere in the body, or a `constructor` whose value has a `prototype` member, is refused
         *     with `400` (a guard against prototype pollution that the schemas do not express).
         *
         *     A create evaluates no precondition: `If-Match` or `If-None-Match` (`If-None-Match: *`
         *     included; a create never overwrites anyway) is a `400` naming the header.
         */
        post: operations["createPlant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plants/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a plant
         * @description Answers the plant with this id, as a list item has it, and its strong `ETag`. Requires an
         *     access token with the scope `plants/read`. The read is strongly consistent: it sees every
         *     write answered before it.
         *
         *     With `If-None-Match` naming the plant's ETag (or `*`), the answer is `304` with the ETag and
         *     no body. A read plant may be kept by the client and revalidated so (`Cache-Control:
         *     private, no-cache`); every other answer is `no-store`.
         */
        get: operations["getPlant"];
        /**
         * Replace a plant
         * @description Replaces the plant with this id: its `name`, and its `tag` (a body without `tag` leaves the
         *     plant without one). Requires an access token with the scope `plants/write`. The rules and
         *     limits are a create's (16384 bytes, the `Plant` schema).
         *
         *     A replace never creates: an id no plant has is a `404` (creating is `POST /plants`'s, with
         *     its replay rule). Send `If-Match` with the ETag your read answered: if the plant has been
         *     written since, the answer is `412` and nothing changes, so no update is ever lost; of
         *     writers racing with the same `If-Match`, exactly one gets `200`. **Without `If-Match` the
         *     replace is unconditional**, and overwrites whatever is stored. A replace is not a new
         *     plant: it sends no webhook event.
         */
        put: operations["replacePlant"];
        post?: never;
        /**
         * Delete a plant
         * @description Deletes the plant with this id. Requires an access token with the scope `plants/write`.
         *
         *     Answers `204` whether or not a plant had this id: a delete is idempotent, so a client may
         *     retry one whose answer it did not get, and needs no branch for a plant already gone.
         *     Afterwards the id is free: a create with any name answers `200`. A delete racing a create
         *     of the same id leaves either the whole plant or none, never part of one.
         *
         *     Send `If-Match` with the ETag your read answered to delete only the plant as you read it:
         *     if it has been written since, or is no longer there (RFC 9110 13.1.1: `If-Match` is false
         *     without a current plant, `*` included), the answer is `412` and nothing changes. So a
         *     conditional delete retried after its answer was lost answers `412` once the first attempt
         *     deleted the plant: read it again (`404`: it is gone). Of deletes and replaces racing with
         *     the same `If-Match`, exactly one succeeds.
         *
         *     The id is named exactly as an int64 is written in decimal: digits, a leading `-` for a
         *     negative id, no leading zeros, no `+`, fraction, exponent or spaces, and not `-0`, so that
         *     `/plants/01` can never delete plant 1. The gateway decodes percent-escapes in the path
         *     first, as HTTP allows, so `/plants/%31` names plant 1 too: one plant has one id, written
         *     one way once decoded.
         */
        delete: operations["deletePlant"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "/plant/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new plant was added to the store
         * @description Information about a new plant added to the store: sent to the subscriber's URL once for
         *     each create that answered `200` as a new plant, never for an idempotent replay or a `409`.
         *     A plant deleted and created again is a new event. On AWS the URL is the stack's
         *     `webhookUrl` context (https only); locally, `PLANTS_WEBHOOK_URL`. See docs/webhooks.md.
         *
         *     **Signed** per the Standard Webhooks specification: verify `webhook-signature` with the
         *     `standardwebhooks` package (or any Standard Webhooks library) and the `whsec_...` secret
         *     (the `WebhookSecretCommand` stack output prints it), and refuse what does not verify. The
         *     signature covers `webhook-id`, `webhook-timestamp` and the body exactly as sent; the
         *     libraries also refuse a timestamp more than 5 minutes away from the receiver's clock.
         *
         *     **Delivered at least once.** A `2xx` whose whole answer arrives within 15 seconds
         *     acknowledges the event. Anything else fails the attempt: another status (a redirect is
         *     not followed), no answer within 15 seconds, a refused or reset connection. A failed event
         *     is tried again after 2 s, 30 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (each wait up to
         *     20 % longer, to spread a backlog): 9 attempts over more than 27 hours. After the last it
         *     goes to a dead-letter queue, where an alarm pages the operator, who can send it again
         *     with a new schedule. One event that keeps failing does not hold up the others.
         *
         *     **De-duplicate by `webhook-id`**: every attempt of one event carries the same id, and a
         *     retry, or a redrive from the dead-letter queue, can arrive after the subscriber already
         *     acknowledged it. Two events, even for the same plant id, never share an id.
         *
         *     **Order is not guaranteed**: events arrive in any order, and a retried event after later
         *     ones.
         */
        post: operations["newPlantWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Plant: {
            /** @description The name of the plant. Checked as sent (the length in code points), then stored and answered in Unicode NFC, so canonically equivalent spellings (`Café` precomposed or with a combining accent) are one plant; text whose NFC form would break these rules (NFC turns each U+0958 into two code points) is kept as sent, so an answered Plant always matches this schema. Refused: control characters (tab and newline too), lone surrogates, line and paragraph separators (U+2028, U+2029) and invisible format characters (Unicode category Cf: bidi overrides and isolates, zero-width space, word joiner, BOM, soft hyphen), except where one is part of the writing: ZWNJ or ZWJ between two letters or marks that are not Latin, Greek or Cyrillic (Arabic-script and Indic spelling), ZWJ between two emoji (`👩🏽‍💻`, `🏳️‍🌈`), and the tags of a subdivision flag (🏴 + region + cancel tag). The pattern needs the `u` flag (see the API description). */
            name: string;
            /** @description Tag to specify the type. The same characters as `name` are allowed, checked and normalized the same way. */
            tag?: string;
        };
        NewPlant: components["schemas"]["Plant"] & {
            id: components["schemas"]["PlantId"];
        };
        /** @description A plant as `GET /plants` lists it: the `Plant` and its `id`, which `Plant`'s schema allows as a further property and a client needs to delete it. No `tag` when the plant has none. */
        PlantListItem: components["schemas"]["Plant"] & {
            id: components["schemas"]["PlantId"];
        };
        /** @description What `PUT /plants/{id}` takes: a `Plant`, by the same rules and limits as a create. An `id` is allowed, so that a client may send back what it read, only when it is exactly the path's id; the answer of any other is a `400` naming `id`. */
        PlantReplacement: components["schemas"]["Plant"] & {
            id?: components["schemas"]["PlantId"];
        };
        /**
         * Format: int64
         * @description Identification number of the plant, kept exact over the whole int64 range
         */
        PlantId: number | bigint;
        Error: {
            /**
             * Format: int32
             * @description The HTTP status of the answer
             */
            error: number;
            /** @description What went wrong, for a human; never internal details */
            message: string;
        };
        /** @description An answer of the gateway itself (API Gateway on AWS, its stand-in in the local server), given before or instead of the API's; not an `Error` */
        GatewayMessage: {
            /** @description The status's reason phrase, e.g. `Not Found` or `Request Entity Too Large` */
            message: string;
        };
    };
    responses: {
        /** @description The bearer token is missing, malformed, expired, not yet valid, issued in the future, living longer than 24 hours, wrongly signed, or from another issuer or audience */
        Unauthorized: {
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
        /** @description An unexpected fault (an `Error`, logged with the request id; the body says nothing internal), or the function failed or timed out (a `GatewayMessage` from the gateway) */
        InternalServerError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
            };
        };
        /** @description The store (or the token issuer) is throttled or unreachable after bounded retries (an `Error`, with `Retry-After`), or the function could not be reached in time (a `GatewayMessage` from the gateway); retrying the identical request is safe */
        ServiceUnavailable: {
            headers: {
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
            };
        };
        /** @description The gateway's own limit; a request body over 10 MB, which the operation does not read, is not passed on */
        GatewayContentTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Request Entity Too Large"
                 *     }
                 */
                "application/json": components["schemas"]["GatewayMessage"];
            };
        };
        /** @description The local server only; the request did not arrive whole within its time limit (30 s by default). The connection is closed */
        RequestTimeout: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Request Timeout"
                 *     }
                 */
                "application/json": components["schemas"]["GatewayMessage"];
            };
        };
        /** @description The local server only; the `Host` header does not name it (a page on another name that resolves to this machine cannot reach the API) */
        MisdirectedRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Misdirected Request"
                 *     }
                 */
                "application/json": components["schemas"]["GatewayMessage"];
            };
        };
        /** @description The gateway's throttle; on AWS the stage's rate or burst limit, locally too many request bodies in flight at once (with `Retry-After`) */
        TooManyRequests: {
            headers: {
                "Retry-After": components["headers"]["RetryAfter"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Too Many Requests"
                 *     }
                 */
                "application/json": components["schemas"]["GatewayMessage"];
            };
        };
    };
    parameters: {
        /** @description The plant's id in canonical decimal form; `01`, `1.0`, `+1`, `-0`, `1e3`, `abc` and ids outside the int64 range (`9223372036854775808`) are a `400` naming `id`. */
        PlantIdInPath: components["schemas"]["PlantId"];
        /**
         * @description `*` or a comma-separated list of at most 16 entity tags (`"…"` or `W/"…"`), compared weakly (RFC 9110 13.1.2): when one is the plant's ETag, the answer is `304` with no body. A malformed value, more than 16 tags, or `If-Match` on the same request is a `400` naming the header (docs/decisions/0130-preconditions.md).
         * @example "Q2hhbmdlZCBieSBhIHdyaXRl"
         */
        IfNoneMatch: string;
        /** @description `*` or a comma-separated list of at most 16 entity tags, compared strongly (RFC 9110 13.1.1: a weak tag `W/"…"` never matches): the plant is replaced or deleted only when one is its current ETag, else the answer is `412` and nothing changes. `*` matches any existing plant. Without it a replace or a delete is unconditional: send the ETag your read answered, so that a write made since is never lost. A malformed value, more than 16 tags, or `If-None-Match` on the same request is a `400` naming the header (docs/decisions/0130-preconditions.md). For example `"Q2hhbmdlZCBieSBhIHdyaXRl"`, an ETag as a read answered it; no example value is set, so that a "Try it out" of the API reference sends no stale tag. */
        IfMatch: string;
        /**
         * @description The event's id, `msg_` and the table stream record's id: the same on every attempt of one event, different for every event. De-duplicate by it.
         * @example msg_c4ca4238a0b923820dcc509a6f75849b
         */
        WebhookId: string;
        /**
         * @description When this attempt was sent, in seconds since the Unix epoch
         * @example 1767225600
         */
        WebhookTimestamp: string;
        /**
         * @description `v1,` and the base64 HMAC-SHA256, keyed with the secret's key (the base64 after `whsec_`, decoded), of `<webhook-id>.<webhook-timestamp>.<body>`
         * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
         */
        WebhookSignature: string;
    };
    requestBodies: never;
    headers: {
        /** @description RFC 6750 challenge, e.g. `Bearer realm="plant-store", error="invalid_token", error_description="Token has expired"` */
        WwwAuthenticate: string;
        /** @description Seconds to wait before retrying */
        RetryAfter: number;
        /** @description Answers are never cached */
        CacheControl: "no-store";
        /** @description A read plant may be kept by the client that read it, and must be revalidated with `If-None-Match` before each use (docs/decisions/0128-a-read-plant-is-private-no-cache.md) */
        CacheControlRevalidate: "private, no-cache";
        /** @description The plant's strong entity tag: it changes with every write of the plant, a create again after a delete included (docs/decisions/0127-etag-is-a-revision.md) */
        ETag: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listPlants: {
        parameters: {
            query?: {
                /** @description The most plants the page holds, an integer from 1 to 100 in decimal digits; 20 when absent. Anything else is a `400` naming `limit`: `0`, `-1`, `101`, `1.5`, `abc`, `2147483648`, an empty value, or `limit` given twice (also as `limit=1,2`: the gateway joins a repeated parameter's values with a comma). */
                limit?: number;
                /** @description Where the page starts, as the previous page's next link gives it; absent for the first page. Opaque: a cursor that was changed or cut short, that another deployment's table issued, or that belongs to pages of another `limit` is a `400` naming `cursor`, and never reveals anything of another table. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of plants, in the store's order; the next page in `Link` unless this is the last */
            200: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    /** @description The next page, `</plants?limit=<limit>&cursor=<cursor>>; rel="next"` (RFC 8288); absent on the last page */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example [
                     *       {
                     *         "id": 1,
                     *         "name": "Fern",
                     *         "tag": "indoor"
                     *       },
                     *       {
                     *         "id": 9223372036854776000,
                     *         "name": "Ivy"
                     *       }
                     *     ]
                     */
                    "application/json": components["schemas"]["PlantListItem"][];
                };
            };
            /** @description `limit` is not an integer from 1 to 100, is empty or given twice, or `cursor` is not one this API issued for this `limit` (the message names the parameter), or the request carries `If-Match` or `If-None-Match`, which a list does not evaluate (the message names the header) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "limit must be an integer from 1 to 100"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The token is valid but lacks the scope `plants/read` */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "Token lacks the scope \"plants/read\""
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["GatewayContentTooLarge"];
            421: components["responses"]["MisdirectedRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
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
            /** @description unexpected error; the body is not valid JSON, not an object, or a field is missing, mistyped or out of bounds (the message names the field), or the request carries `If-Match` or `If-None-Match`, which a create does not evaluate (the message names the header) */
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
            401: components["responses"]["Unauthorized"];
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
            408: components["responses"]["RequestTimeout"];
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
            /** @description The body is larger than 16384 bytes (an `Error` from the API), or larger than 10 MB (a `GatewayMessage` from the gateway, which does not pass it on) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
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
            421: components["responses"]["MisdirectedRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPlant: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description `*` or a comma-separated list of at most 16 entity tags (`"…"` or `W/"…"`), compared weakly (RFC 9110 13.1.2): when one is the plant's ETag, the answer is `304` with no body. A malformed value, more than 16 tags, or `If-Match` on the same request is a `400` naming the header (docs/decisions/0130-preconditions.md).
                 * @example "Q2hhbmdlZCBieSBhIHdyaXRl"
                 */
                "If-None-Match"?: components["parameters"]["IfNoneMatch"];
            };
            path: {
                /** @description The plant's id in canonical decimal form; `01`, `1.0`, `+1`, `-0`, `1e3`, `abc` and ids outside the int64 range (`9223372036854775808`) are a `400` naming `id`. */
                id: components["parameters"]["PlantIdInPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The plant */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControlRevalidate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "name": "Fern",
                     *       "tag": "indoor"
                     *     }
                     */
                    "application/json": components["schemas"]["PlantListItem"];
                };
            };
            /** @description `If-None-Match` names the plant's ETag: the copy the client has is current; no body */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControlRevalidate"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The id is not an int64 in canonical decimal form, or `If-None-Match` is malformed, lists more than 16 tags, or comes with `If-Match` (the message names `id` or the header) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "If-None-Match must be * or a list of entity tags such as \"abc\" or W/\"abc\", each in double quotes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            /** @description The token is valid but lacks the scope `plants/read` */
            403: {
                headers: {
                    "WWW-Authenticate": components["headers"]["WwwAuthenticate"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "Token lacks the scope \"plants/read\""
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No plant has this id */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "No plant has id 1"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            413: components["responses"]["GatewayContentTooLarge"];
            421: components["responses"]["MisdirectedRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    replacePlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description `*` or a comma-separated list of at most 16 entity tags, compared strongly (RFC 9110 13.1.1: a weak tag `W/"…"` never matches): the plant is replaced or deleted only when one is its current ETag, else the answer is `412` and nothing changes. `*` matches any existing plant. Without it a replace or a delete is unconditional: send the ETag your read answered, so that a write made since is never lost. A malformed value, more than 16 tags, or `If-None-Match` on the same request is a `400` naming the header (docs/decisions/0130-preconditions.md). For example `"Q2hhbmdlZCBieSBhIHdyaXRl"`, an ETag as a read answered it; no example value is set, so that a "Try it out" of the API reference sends no stale tag. */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                /** @description The plant's id in canonical decimal form; `01`, `1.0`, `+1`, `-0`, `1e3`, `abc` and ids outside the int64 range (`9223372036854775808`) are a `400` naming `id`. */
                id: components["parameters"]["PlantIdInPath"];
            };
            cookie?: never;
        };
        /** @description The plant's new content */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Fern",
                 *       "tag": "outdoor"
                 *     }
                 */
                "application/json": components["schemas"]["PlantReplacement"];
            };
        };
        responses: {
            /** @description The plant as replaced, with its new ETag */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": 1,
                     *       "name": "Fern",
                     *       "tag": "outdoor"
                     *     }
                     */
                    "application/json": components["schemas"]["PlantListItem"];
                };
            };
            /** @description The id is not an int64 in canonical decimal form, the body is not a Plant (the message names the field), an `id` in the body is not the path's, or `If-Match` is malformed, lists more than 16 tags, or comes with `If-None-Match` (the message names the header) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name is required"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
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
            /** @description No plant has this id; nothing is created */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "No plant has id 1"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            408: components["responses"]["RequestTimeout"];
            /** @description `If-Match` names none of the plant's ETags: it has been written since it was read; nothing changes */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "Plant 1 has changed since it was read: read it again, then retry with its ETag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is larger than 16384 bytes (an `Error` from the API), or larger than 10 MB (a `GatewayMessage` from the gateway, which does not pass it on) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayMessage"];
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
            421: components["responses"]["MisdirectedRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deletePlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description `*` or a comma-separated list of at most 16 entity tags, compared strongly (RFC 9110 13.1.1: a weak tag `W/"…"` never matches): the plant is replaced or deleted only when one is its current ETag, else the answer is `412` and nothing changes. `*` matches any existing plant. Without it a replace or a delete is unconditional: send the ETag your read answered, so that a write made since is never lost. A malformed value, more than 16 tags, or `If-None-Match` on the same request is a `400` naming the header (docs/decisions/0130-preconditions.md). For example `"Q2hhbmdlZCBieSBhIHdyaXRl"`, an ETag as a read answered it; no example value is set, so that a "Try it out" of the API reference sends no stale tag. */
                "If-Match"?: components["parameters"]["IfMatch"];
            };
            path: {
                /** @description The plant's id in canonical decimal form; `01`, `1.0`, `+1`, `-0`, `1e3`, `abc` and ids outside the int64 range (`9223372036854775808`) are a `400` naming `id`. */
                id: components["parameters"]["PlantIdInPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted, or, without `If-Match`, there was no plant with this id; no body */
            204: {
                headers: {
                    "Cache-Control": components["headers"]["CacheControl"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The id is not an int64 in canonical decimal form (the message names `id`), or `If-Match` is malformed, lists more than 16 tags, or comes with `If-None-Match`, which a delete does not evaluate (the message names the header) */
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
            401: components["responses"]["Unauthorized"];
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
            408: components["responses"]["RequestTimeout"];
            /** @description `If-Match` names none of the plant's ETags, or no plant has this id: it has been written or deleted since it was read; nothing changes */
            412: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "Plant 1 has changed since it was read: read it again, then retry with its ETag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["GatewayContentTooLarge"];
            421: components["responses"]["MisdirectedRequest"];
            429: components["responses"]["TooManyRequests"];
            500: components["responses"]["InternalServerError"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    newPlantWebhook: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description The event's id, `msg_` and the table stream record's id: the same on every attempt of one event, different for every event. De-duplicate by it.
                 * @example msg_c4ca4238a0b923820dcc509a6f75849b
                 */
                "webhook-id": components["parameters"]["WebhookId"];
                /**
                 * @description When this attempt was sent, in seconds since the Unix epoch
                 * @example 1767225600
                 */
                "webhook-timestamp": components["parameters"]["WebhookTimestamp"];
                /**
                 * @description `v1,` and the base64 HMAC-SHA256, keyed with the secret's key (the base64 after `whsec_`, decoded), of `<webhook-id>.<webhook-timestamp>.<body>`
                 * @example v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=
                 */
                "webhook-signature": components["parameters"]["WebhookSignature"];
            };
            path?: never;
            cookie?: never;
        };
        /** @description The NewPlant as stored: `id` an exact int64 JSON number (read it without rounding: above 2^53 a JavaScript number is not exact), `name`, and `tag` when the plant has one. */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": 9223372036854776000,
                 *       "name": "Monstera",
                 *       "tag": "tropical"
                 *     }
                 */
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description Return a 200 status to indicate that the data was received successfully */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer, or none within 15 seconds, fails the attempt: the event is sent again on the schedule above (any `2xx` acknowledges it, as a `200` does) */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
