#!/usr/bin/env bash
# The "Automations and webhooks" walk-through of README.md, in a fresh team, against `npm start` (sandbox email):
#   bash scripts/automation-walkthrough.sh            (or TAP_URL=http://host:port, or that URL as $1)
# An inbound webhook (POSTed twice with one webhook-id) enrolls a new contact in an automation that
# sends an email after a wait, while the team's webhook receiver (scripts/webhook-receiver.ts,
# started here on 127.0.0.1 and stopped at the end) prints the signed events it verified.
# The receiver is a loopback URL: the API must allow private webhook URLs, as `npm start` does unless
# NODE_ENV=production (then set WEBHOOK_ALLOW_PRIVATE_URLS=true; docs/EVENTS.md › SSRF guard).
# Needs curl, jq and node. Stops at the first call that fails, printing its error body.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
new_team journeys
echo "# Team $TEAM, agent $AGENT"
WORK=$(mktemp -d)
RECEIVER_PID=
cleanup() {
  [[ -n $RECEIVER_PID ]] && kill "$RECEIVER_PID" 2> /dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# An ISO time as seconds (with its fraction), for jq.
SECS='def secs: capture("^(?<s>[^.Z]+)(\\.(?<f>[0-9]+))?Z$") | ((.s + "Z") | fromdateiso8601) + ("0." + (.f // "0") | tonumber);'

echo '# The agent: sandbox email, auto mode; the Automations app'
req -X PUT "$API/agents/$AGENT/integrations/email" "${H[@]}" "${J[@]}" -d '{"provider":"sandbox"}' | jq -c '{channel, provider, active}'
req -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"auto"}' | jq -c '{mode}'
req -X PUT "$API/apps/automations" "${H[@]}" | jq -c '{slug, installed}'

echo '# The webhook receiver (its own secret), and an outbound endpoint that sends it contact events'
SECRET="whsec_$(head -c 24 /dev/urandom | base64)"
WEBHOOK_SECRET=$SECRET PORT=0 node --import tsx scripts/webhook-receiver.ts > "$WORK/events.jsonl" 2> "$WORK/receiver.log" &
RECEIVER_PID=$!
for _ in $(seq 100); do grep -q 'http://' "$WORK/receiver.log" && break; sleep 0.1; done
RECEIVER=$(grep -o 'http://127.0.0.1:[0-9]*' "$WORK/receiver.log" | head -1 || true)
[[ -n $RECEIVER ]] || fail "the webhook receiver did not start: $(cat "$WORK/receiver.log")"
ENDPOINT=$(req -X POST "$API/webhooks/endpoints" "${H[@]}" "${J[@]}" \
  -d "{\"url\":\"$RECEIVER\",\"secret\":\"$SECRET\",\"eventTypes\":[\"contact.created\",\"contact.updated\"],\"description\":\"walk-through receiver\"}")
jq -c '{id, url, eventTypes, enabled}' <<<"$ENDPOINT"
EP=$(jq -er .id <<<"$ENDPOINT")

echo '# An AGENT_AUTH_KEY for the agent hooks path (shown once), and an automation on the inbound source "signup"'
KEY=$(req -X POST "$API/agents/$AGENT/auth-keys" "${H[@]}" | jq -er .key)
echo "key ${KEY:0:8}…"
AUTOMATION=$(req -X POST "$API/automations" "${H[@]}" "${J[@]}" -d '{
  "name": "Welcome",
  "trigger": { "kind": "inbound", "source": "signup",
    "mapping": { "email": "$.user.email", "name": "$.user.name", "marketingConsent": "$.user.marketing", "consentSource": "$.form" } },
  "steps": [
    { "type": "wait", "duration": "3s" },
    { "type": "send", "channel": "email", "subject": "Welcome {{first}}", "content": "Hi {{first}}, thanks for signing up.",
      "templateParams": { "first": "contact.firstName" } },
    { "type": "wait", "duration": "1s" }
  ]
}')
jq -c '{id, trigger, steps: [.steps[].type], hookId}' <<<"$AUTOMATION"
AU=$(jq -er .id <<<"$AUTOMATION")

echo '# The sign-up form POSTs the inbound webhook; then the same delivery (webhook-id) again'
SIGNUP='{"form":"signup form","user":{"email":"grace@example.com","name":"Grace Hopper","marketing":"granted"}}'
inbound() {
  req -X POST "$API/agents/$AGENT/hooks?source=signup" -H "Authorization: Bearer $KEY" "${J[@]}" \
    -H 'webhook-id: msg_signup_1' -d "$SIGNUP"
}
FIRST=$(inbound)
jq -c '{source, deliveryId, runs: [.runs[] | {runId, state}]}' <<<"$FIRST"
check 'the inbound POST' '.deliveryId == "msg_signup_1" and (.runs | length) == 1' "$FIRST"
AGAIN=$(inbound)
jq -c '{source, deliveryId, runs: [.runs[] | {runId, state}]}' <<<"$AGAIN"
RUN=$(jq -er '.runs[0].runId' <<<"$FIRST")
check 'the replay (the same run, not a new one)' "[.runs[].runId] == [\"$RUN\"]" "$AGAIN"

echo '# The enrollment waits 3 s, sends, waits 1 s and completes (at most 30 s)'
ENR=$(poll 15 '.data | length > 0' "$API/automations/$AU/enrollments" "${H[@]}" | jq -er '.data[0].id')
req "$API/automations/$AU/enrollments/$ENR" "${H[@]}" | jq -c '{id, status, step}'
DONE=$(poll 30 '.status != "active"' "$API/automations/$AU/enrollments/$ENR" "${H[@]}")
jq -c '{id, contactId, status, steps: [.steps[] | {step, status, to: .detail.to}]}' <<<"$DONE"
check "enrollment $ENR" '.status == "completed" and ([.steps[] | select(.status == "sent")] | length) == 1' "$DONE"
CONTACT=$(jq -er .contactId <<<"$DONE")
ALL=$(req "$API/automations/$AU/enrollments" "${H[@]}")
check 'the enrollments (the replay enrolled nobody again)' '.data | length == 1' "$ALL"

echo '# Exactly one message went out, after the wait (the message log and the sandbox outbox)'
SENT=$(req "$API/messages?sourceKind=automation&sourceId=$ENR" "${H[@]}")
jq -c '.data[] | {channel, address, status, sourceKind, createdAt}' <<<"$SENT"
check 'the message log' "[.data[] | select(.status == \"sent\" and .contactId == \"$CONTACT\")] | length == 1" "$SENT"
WAITED=$(jq -n --argjson m "$SENT" --argjson e "$DONE" "$SECS"'($m.data[0].createdAt | secs) - ($e.createdAt | secs) | . * 10 | floor / 10')
echo "sent ${WAITED}s after the enrollment"
jq -e '. >= 3' <<<"$WAITED" > /dev/null || fail "the message was sent ${WAITED}s after the enrollment, before its 3 s wait"
OUTBOX=$(req "$API/outbox?limit=20" "${H[@]}")
jq -c '.data[] | {to, subject}' <<<"$OUTBOX"
check 'the outbox' '[.data[] | select(.to == "grace@example.com" and .subject == "Welcome Grace")] | length == 1' "$OUTBOX"

echo '# What the receiver printed: every event verified with the standardwebhooks package (at most 30 s)'
for _ in $(seq 300); do grep -q "\"$CONTACT\"" "$WORK/events.jsonl" && break; sleep 0.1; done
jq -c '{webhookId, verified, type, contact: (.data.contact | {id, email, marketingConsent})}' "$WORK/events.jsonl"
EVENTS=$(jq -sc . "$WORK/events.jsonl")
check 'the receiver' "[.[] | select(.verified and .type == \"contact.created\" and .data.contact.id == \"$CONTACT\")] | length == 1" "$EVENTS"
req "$API/webhooks/endpoints/$EP/deliveries" "${H[@]}" | jq -c '.data[] | {id, eventType, status, attempts}'
echo "# In the Temporal UI: enrollment-$ENR (its waits are durable timers) and hook-run-$RUN, the run that enrolled it"
echo "OK automation walk-through: an inbound webhook (POSTed twice, one delivery) enrolled a new contact, who got exactly one email 3 s later, and the receiver printed the signed contact.created it verified"
