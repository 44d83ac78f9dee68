import type { Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";
type S = components["schemas"];
interface Lists {
    "/business/messages": {
        key: "messages";
        item: S["MessageRecord"];
    };
    "/business/webhook-deliveries": {
        key: "deliveries";
        item: S["Delivery"];
    };
    "/business/followers": {
        key: "followers";
        item: S["Follower"];
    };
    "/business/broadcasts": {
        key: "broadcasts";
        item: S["Broadcast"];
    };
    "/business/events": {
        key: "events";
        item: S["Event"];
    };
}
/** The paths that answer a page. */
export type PagedPath = keyof Lists;
/** The item type of a paged path. */
export type PageItem<P extends PagedPath> = Lists[P]["item"];
type Query<P extends PagedPath> = NonNullable<paths[P]["get"]["parameters"]["query"]>;
/**
 * Every item of a paged list, page after page, fetched as the iteration needs them:
 *
 *     for await (const message of paginate(api, "/business/messages", { status: "delivered", limit: 100 })) { ... }
 *
 * With `after` (events only) it reads the events committed after that one, oldest first, until
 * none are left; otherwise it follows `starting_after` from the newest.
 */
export declare function paginate<P extends PagedPath>(client: Client<paths>, path: P, query?: Query<P>): AsyncGenerator<PageItem<P>, void, undefined>;
export {};
