// Paging through the paged lists: history, deliveries, followers, broadcasts and events. Each
// answers `{<items>, has_more}` newest first; the next page is asked for with `starting_after` =
// the last item's id (a follower's `user_id`). Events can also be read oldest first after a known
// one (`after`), as a poller does. (Written by hand; `schema.ts` is generated.)
const KEYS = {
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
export async function* paginate(client, path, query = {}) {
    const params = { ...query };
    const cursor = "after" in params && params.after !== undefined ? "after" : "starting_after";
    for (;;) {
        // The path is one of the five; openapi-fetch's per-path typing cannot follow a generic one.
        const get = client.GET;
        const answer = await get(path, { params: { query: params } });
        if (answer.data === undefined) {
            throw new Error(`${path}: ${answer.response.status} without a body`);
        }
        const page = answer.data.data;
        const items = (page[KEYS[path]] ?? []);
        yield* items;
        const last = items[items.length - 1];
        if (last === undefined || page.has_more !== true)
            return;
        params[cursor] = last.id ?? last.user_id;
    }
}
