#!/usr/bin/env bash
# The "Deliverables" walk-through of README.md, in a fresh team, against `npm start`:
#   bash scripts/delivery-walkthrough.sh            (or TAP_URL=http://host:port, or that URL as $1)
# Needs curl and jq. Stops at the first call that fails, printing its error body.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
new_team deliver
echo "# Team $TEAM, agent $AGENT"

echo '# The agent sends email through the sandbox provider (it records messages in the outbox)'
req -X PUT "$API/agents/$AGENT/integrations/email" "${H[@]}" "${J[@]}" -d '{"provider":"sandbox"}' | jq -c '{channel, provider, active}'
CONTACT=$(req -X POST "$API/contacts" "${H[@]}" "${J[@]}" -d '{"name":"Grace Hopper","email":"grace@example.com"}' | jq -er .id)

echo '# A file, and an artifact that uses it (a draft), then ready'
FILE=$(req -X POST "$API/media" "${H[@]}" -F 'file=@README.md;type=text/markdown' | jq -er .id)
ART=$(req -X POST "$API/artifacts" "${H[@]}" "${J[@]}" \
  -d "{\"title\":\"Proposal\",\"type\":\"offer\",\"url\":\"https://example.com/proposal\",\"media\":[\"$FILE\"],\"contactId\":\"$CONTACT\"}" | jq -er .id)
req -X PATCH "$API/artifacts/$ART" "${H[@]}" "${J[@]}" -d '{"status":"ready"}' | jq -c '{id, status, media: [.media[].url]}'

echo '# Manual mode: the delivery waits for a person'
req -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"manual"}' | jq -c '{uuid, mode}'
PENDING=$(req -X POST "$API/artifacts/deliver" "${H[@]}" "${J[@]}" -d "{\"artifactIds\":[\"$ART\"],\"message\":\"Here is the proposal we discussed.\",\"integration\":\"email\"}")
echo "$PENDING"
check 'deliver in manual mode' '.pending == true and .status == "pending_approval"' "$PENDING"
WX=$(jq -er .executionId <<<"$PENDING")
INBOX=$(req "$API/warp-executions?status=pending_approval" "${H[@]}")
jq -c '[.data[] | {id, status}]' <<<"$INBOX"
check 'the approvals inbox' "[.data[] | select(.id == \"$WX\")] | length == 1" "$INBOX"
req "$API/warp-executions/$WX" "${H[@]}" | jq -c '{status, draft}'

echo '# Approve, editing the subject; wait (at most 30 s) for the send'
req -X POST "$API/warp-executions/$WX/approve" "${H[@]}" "${J[@]}" -d '{"subject":"Your proposal"}' | jq -c '{status, subject: .draft.subject}'
DONE=$(poll 30 '.status != "pending_approval" and .status != "running"' "$API/warp-executions/$WX" "${H[@]}")
jq -c '{status, deliveries: [.result.deliveries[]? | {contactId, status, to, subject}]}' <<<"$DONE"
check 'the approved delivery' '.status == "succeeded" and ([.result.deliveries[] | select(.status == "sent")] | length) == 1' "$DONE"

echo '# What went out, the delivery record, and the artifact now sent'
OUTBOX=$(req "$API/outbox" "${H[@]}")
jq -c '.data[] | {to, subject, body}' <<<"$OUTBOX"
check 'the outbox' '[.data[] | select(.to == "grace@example.com" and .subject == "Your proposal")] | length == 1' "$OUTBOX"
req "$API/deliveries?artifactId=$ART" "${H[@]}" | jq -c '.data[] | {id, contactId, artifactIds, status, providerMessageId}'
ARTIFACT=$(req "$API/artifacts/$ART" "${H[@]}")
jq -c '{status, deliveredAt}' <<<"$ARTIFACT"
check 'the artifact' '.status == "sent" and .deliveredAt != null' "$ARTIFACT"

echo '# Back to auto mode (the README campaign section starts by doing this)'
req -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"auto"}' | jq -c '{uuid, mode}'
echo "# In the Temporal UI: workflow delivery-$WX"
echo "OK delivery walk-through: a manual-mode delivery waited for approval, was approved with an edited subject, sent once through the sandbox, recorded, and its artifact reads sent"
