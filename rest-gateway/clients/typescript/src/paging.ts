// Paging through the paged lists: history, deliveries, followers, broadcasts and events. Each
// answers `{<items>, has_more}` newest first; the next page is asked for with `starting_after` =
// the last item's id (a follower's `user_id`). Events can also be read oldest first after a known
// one (`after`), as a poller does. (Written by hand; `schema.ts` is generated.)

import type { Client } from "openapi-fetch";

import type { components, paths } from "./schema.js";

type S = components["schemas"];

interface Lists {
  "/business/messages": { key: "messages"; item: S["MessageRecord"] };
  "/business/webhook-deliveries": { key: "deliveries"; item: S["Delivery"] };
  "/business/followers": { key: "followers"; item: S["Follower"] };
  "/business/broadcasts": { key: "broadcasts"; item: S["Broadcast"] };
  "/business/events": { key: "events"; item: S["Event"] };
}

/** The paths that answer a page. */
export type PagedPath = keyof Lists;
/** The item type of a paged path. */
export type PageItem<P extends PagedPath> = Lists[P]["item"];
type Query<P extends PagedPath> = NonNullable<paths[P]["get"]["parameters"]["query"]>;

const KEYS: { [P in PagedPath]: Lists[P]["key"] } = {
  "/business/messages": "messages",
  "/business/webhook-deliveries": "deliveries",
  "/business/followers": "followers",
  "/business/broadcasts": "broadcasts",
  "/business/events": "events",
};

/**
 * Every item of a paged list, page after page, fetched as the iteration needs them:
 *
 *     for await (const message of paginate(api, "/business/messages", { status: "delivered", limit: 100 })) { ... }
 *
 * With `after` (events only) it reads the events committed after that one, oldest first, until
 * none are left; otherwise it follows `starting_after` from the newest.
 */
export async function* paginate<P extends PagedPath>(
  client: Client<paths>,
  path: P,
  query: Query<P> = {} as Query<P>,
): AsyncGenerator<PageItem<P>, void, undefined> {
  const params: Record<string, unknown> = { ...query };
  const cursor = "after" in params && params.after !== undefined ? "after" : "starting_after";
  for (;;) {
    // The path is one of the five; openapi-fetch's per-path typing cannot follow a generic one.
    const get = client.GET as unknown as (
      path: string,
      init: { params: { query: Record<string, unknown> } },
    ) => Promise<{ data?: { data: Record<string, unknown> }; response: Response }>;
    const answer = await get(path, { params: { query: params } });
    if (answer.data === undefined) {
      throw new Error(`${path}: ${answer.response.status} without a body`);
    }
    const page = answer.data.data;
    const items = (page[KEYS[path]] ?? []) as PageItem<P>[];
    yield* items;
    const last = items[items.length - 1] as { id?: string; user_id?: string } | undefined;
    if (last === undefined || page.has_more !== true) return;
    params[cursor] = last.id ?? last.user_id;
  }
}
