// What the console says to a person: one sentence per error code the service can answer (chosen
// by the code, never the service's own detail, which names fields and formats for developers),
// and why a message failed.

import { ApiError } from './api.js';

/** A mistake found in a form before anything was sent: its message is the sentence shown. */
export class FormProblem extends Error {}

export const WORDS = {
  malformed_json: 'The console sent something the service could not read. Reload the page and try again.',
  invalid_request: 'Something in the form is not right. Check it and try again.',
  invalid_phone_number: 'That is not a phone number the service can use. Write it with + and the country code, like +14155550123.',
  invalid_otp_code: 'The code is wrong or has expired.',
  invalid_limit: 'The page asked for too many items at once. Reload the page.',
  invalid_message_category: 'That kind of message cannot be sent here.',
  message_body_required: 'Write a message first.',
  invalid_message_content: 'The message is not complete: check its text, title, image and button.',
  recipient_not_found: 'No user has that phone number.',
  invalid_idempotency_key: 'The console sent a request the service refused. Reload the page and try again.',
  invalid_webhook_url: 'That address cannot receive webhooks: use an https address that is reachable from the internet.',
  invalid_webhook_events: 'Choose at least one event.',
  invalid_app_scopes: 'Choose at least one kind of message for the app.',
  user_not_found: 'No user has that phone number.',
  user_in_another_business: 'That person already belongs to another business.',
  cannot_remove_owner: 'The owner cannot be removed or given another role.',
  team_member_not_found: 'That person is not on the team.',
  template_category_mismatch: 'That template is of another kind of message. Pick a template of this kind.',
  template_variable_missing: 'Fill in every value the template asks for.',
  template_variable_unknown: 'The template does not ask for one of these values. Reload the page and try again.',
  template_variable_invalid: 'One of the values is empty or too long for the template.',
  unauthorized: 'You are signed out. Sign in again.',
  invalid_app_token: 'That app token does not work any more.',
  invalid_refresh_token: 'Your session has ended. Sign in again.',
  invalid_qr_secret: 'This sign-in request belongs to another browser.',
  account_suspended: 'This account is suspended.',
  not_a_business_account: 'You do not have a business yet.',
  business_suspended: 'This business is suspended.',
  insufficient_role: 'Your role does not allow this. Ask the owner or an admin.',
  owner_required: 'Only the owner can do this.',
  console_access_required: 'Only a member of a business team can approve a console sign-in.',
  authentication_reserved: 'Sign-in codes are sent only through an app with the authentication scope.',
  app_scope_required: 'The app is not allowed to send this kind of message.',
  app_business_mismatch: 'That app belongs to another business.',
  live_business_required: 'A sandbox business cannot send messages yet: an operator of this service has to make it live.',
  business_not_live: 'This business is not live yet.',
  cannot_follow_own_business: 'A business cannot follow itself.',
  business_follow_required: 'This person does not follow your business, so it cannot message them.',
  marketing_opt_in_required: 'This person has not opted in to marketing messages.',
  service_window_closed: 'The window for free replies has closed: send a utility message, or a marketing message if they opted in.',
  conversation_blocked: 'This conversation is blocked.',
  not_found: 'That page or item does not exist.',
  business_not_found: 'That business does not exist.',
  qr_session_not_found: 'That sign-in request does not exist or has expired.',
  follow_not_found: 'That person does not follow your business.',
  app_not_found: 'That app no longer exists.',
  webhook_not_found: 'That endpoint no longer exists.',
  grant_not_found: 'That permission no longer exists.',
  message_not_found: 'That message does not exist, or its history has been deleted.',
  delivery_not_found: 'That delivery does not exist, or its log has been deleted.',
  broadcast_not_found: 'That broadcast does not exist.',
  conversation_not_found: 'That conversation does not exist.',
  template_not_found: 'That template does not exist.',
  method_not_allowed: 'The console asked for something the service does not do. Reload the page.',
  request_timeout: 'The request took too long to send. Try again.',
  business_already_exists: 'You already have a business.',
  user_already_exists: 'That person already has an account.',
  idempotency_key_conflict: 'This was already sent with different content. Reload the page before sending again.',
  idempotency_in_progress: 'The same send is still being handled. Wait a moment and look at the history.',
  qr_session_not_pending: 'That sign-in request was already approved.',
  qr_session_not_approved: 'That sign-in request has not been approved yet.',
  qr_session_already_exchanged: 'That sign-in request was already used.',
  webhook_url_conflict: 'An endpoint with that address already exists.',
  webhook_paused: 'The endpoint is paused. Resume it first.',
  delivery_not_failed: 'Only a failed delivery can be sent again.',
  message_not_cancelable: 'Only a scheduled message can be canceled: this one is already on its way, sent or canceled.',
  broadcast_not_cancelable: 'Only a scheduled or running broadcast can be canceled.',
  webhook_limit_reached: 'This business has as many endpoints as it may have. Delete one first.',
  template_name_taken: 'This business already has a template with that name, perhaps an archived one. Choose another name.',
  template_archived: 'That template is archived: it can no longer be sent or changed.',
  consent_text_changed: 'The consent wording changed meanwhile: read the new wording and try again.',
  user_owns_business: 'This user owns a business: close it or hand it over first.',
  payload_too_large: 'That is too long to send.',
  request_header_too_large: 'The request was too large. Sign out, sign in again and retry.',
  rate_limited: 'Too many attempts.',
  business_send_rate_limited: 'Your business is sending as fast as it may right now.',
  internal_error: 'Something went wrong on our side.',
  sms_delivery_unavailable: 'The code could not be sent right now.',
  service_unavailable: 'The service is unavailable right now. Try again shortly.',
};

function retryIn(retryAfter) {
  const s = Number(retryAfter);
  if (!Number.isFinite(s) || s <= 0) return '';
  const when = s >= 120 ? `${Math.ceil(s / 60)} minutes` : `${s} second${s === 1 ? '' : 's'}`;
  return ` Try again in ${when}.`;
}

/**
 * The sentence for `err`. A refusal of what a form sent names the form's field in the form's own
 * words when `labels` maps the service's field name to them (`{ name: 'The name' }`); otherwise
 * the code's sentence stands alone.
 */
export function describe(err, labels = {}) {
  if (err instanceof FormProblem) return err.message;
  if (err && err.name === 'TimeoutError') {
    return 'The service did not answer within a minute. Try again shortly.';
  }
  if (!(err instanceof ApiError)) {
    // fetch fails with a TypeError when the network does; anything else is the console's own
    // mistake, logged for whoever looks into it.
    if (err instanceof TypeError && /fetch|network/i.test(String(err.message))) {
      return 'The service could not be reached. Check the connection and try again.';
    }
    console.error(err);
    return 'Something went wrong in this page. Reload it and try again.';
  }
  let text = WORDS[err.code];
  const fieldProblem = (err.code === 'invalid_request' || err.code === 'invalid_message_content')
    && typeof err.detail === 'string' && err.detail.match(/^([A-Za-z_][\w.[\]]*): (.+)$/);
  if (fieldProblem && labels[fieldProblem[1]]) {
    const rest = fieldProblem[2].replace(/\.$/, '');
    text = /^(must|is|are|cannot|may)\b/.test(rest) ? `${labels[fieldProblem[1]]} ${rest}.` : `${labels[fieldProblem[1]]}: ${rest}.`;
  }
  if (!text) {
    text = err.status >= 500 ? WORDS.internal_error : 'The service refused this. Reload the page and try again.';
  }
  if (err.status === 429) text += retryIn(err.retryAfter);
  return text;
}

// Why a message failed, in words (the code stays in the page, as a tooltip, for support).
export const REASON_TEXT = {
  recipient_inactive: 'the recipient\'s account is not active',
  provider_rejected: 'the delivery provider refused it',
  provider_unavailable: 'the delivery provider kept answering with errors',
  provider_timeout: 'the delivery provider did not answer in time',
  provider_unreachable: 'the delivery provider could not be reached',
  consent_withdrawn: 'the recipient unfollowed or withdrew consent before the send time',
  business_not_live: 'the business was no longer live and active at the send time',
  expired: 'it was not sent before it expired',
  canceled: 'canceled before it was sent',
  recipient_erased: 'the recipient\'s data was erased',
};
