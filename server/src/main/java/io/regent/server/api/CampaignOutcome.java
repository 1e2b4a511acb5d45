package io.regent.server.api;

import io.regent.api.v1.LeaderKey;

/**
 * What a campaign came to, for the Election and Lock services to answer with.
 *
 * @param elected whether the campaigning lease holds the name
 * @param holder the holder after the campaign (this lease when elected), or null when the name has none
 * @param grantedLease the lease a campaign with a TTL granted in its own log entry; 0 when it granted none
 */
record CampaignOutcome(boolean elected, LeaderKey holder, long grantedLease) {
}
