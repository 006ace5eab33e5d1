#!/usr/bin/env bash
# The "Agents: rooms, streams, tools, approvals" walk-through of README.md, in a fresh team, against `npm start`:
#   bash scripts/agent-walkthrough.sh            (or TAP_URL=http://host:port, or that URL as $1)
# Needs curl and jq. Starts the fake model (scripts/fake-model.ts) for the part with a model and stops it at the end.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
new_team agents
echo "# Team $TEAM, agent $AGENT"
WORK=$(mktemp -d)
FAKE_PID=
cleanup() {
  [[ -n $FAKE_PID ]] && kill "$FAKE_PID" 2> /dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

echo '# A room with the agent, and a key to follow its stream (the key is shown once)'
OPENED=$(req -X POST "$BASE/mcp/rooms" "${H[@]}" "${J[@]}" -d '{"name":"walkthrough"}')
jq -c '{room: .room.id, created, streamUrl}' <<<"$OPENED"
ROOM=$(jq -er .room.id <<<"$OPENED")
STREAM=$(jq -er .streamUrl <<<"$OPENED")
say() { req -X POST "$API/agents/$AGENT/messages" "${H[@]}" "${J[@]}" -d "$(jq -nc --arg m "$1" --arg r "$ROOM" --argjson w "${2:-30}" '{message: $m, roomId: $r, waitSeconds: $w}')"; }

echo '# No model configured: the offline default says so, and runs explicit tool commands'
HELLO=$(say 'Hello, who are you?')
jq -c '{status, reply: .reply[0:80]}' <<<"$HELLO"
check 'the offline reply' '.status == "completed" and (.reply | test("No model is configured"))' "$HELLO"
CALL=$(say '/call list_rooms {"limit": 5}')
jq -c '{status, reply: .reply[0:80]}' <<<"$CALL"
check 'an explicit /call' '.status == "completed" and (.reply | startswith("Tool list_rooms answered"))' "$CALL"

echo '# A model: the fake OpenAI-compatible server (what AI_BASE_URL points npm start at; here set for this agent)'
node --import tsx scripts/fake-model.ts > "$WORK/fake.json" 2> "$WORK/fake.log" &
FAKE_PID=$!
for _ in $(seq 100); do [[ -s $WORK/fake.json ]] && break; sleep 0.1; done
MODEL_URL=$(jq -er .url "$WORK/fake.json")
req -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d "{\"model\":{\"baseUrl\":\"$MODEL_URL\",\"name\":\"fake-model\"}}" | jq -c '{uuid, model}'

echo '# Follow the stream with curl while the agent answers with a tool call'
curl -sN "$STREAM" > "$WORK/stream.txt" &
CURL_PID=$!
sleep 0.3
TOOL=$(say 'Which rooms do we have?')
jq -c '{status, turnId, reply: .reply[0:80]}' <<<"$TOOL"
check 'the tool-using reply' '.status == "completed" and (.reply | test("The tool answered"))' "$TOOL"
sleep 0.3
kill "$CURL_PID" 2> /dev/null || true
grep -E '^(id|event):' "$WORK/stream.txt" | paste - - | tail -n 8
for event in tool.call tool.result message.delta turn.completed; do
  grep -Eq "^event: ?$event$" "$WORK/stream.txt" || fail "the stream has no $event event"
done

echo '# Reconnect with Last-Event-ID: the stream resumes right after it (events are kept, even after the turn ended)'
curl -sN --max-time 2 -H 'Last-Event-ID: 3' "$STREAM" > "$WORK/resumed.txt" || true
FIRST=$(grep -m1 '^id:' "$WORK/resumed.txt" | tr -dc 0-9 || true)
echo "first event after Last-Event-ID 3: id $FIRST"
[[ $FIRST == 4 ]] || fail "resuming after event 3 started at ${FIRST:-nothing}"

echo '# Manual mode: a sensitive tool call (secret_clear) waits for a person'
req -X PUT "$API/agents/$AGENT/secrets/OLD_API_KEY" "${H[@]}" "${J[@]}" -d '{"value":"sk-old"}' | jq -c '{key, set}'
req -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"manual"}' | jq -c '{uuid, mode}'
WAITING=$(say 'Please forget OLD_API_KEY' 5)
jq -c '{status, pendingApprovals: .turn.pendingApprovals}' <<<"$WAITING"
check 'the waiting turn' '.status == "waiting_approval" and (.turn.pendingApprovals | length) == 1' "$WAITING"
WX=$(jq -er '.turn.pendingApprovals[0].executionId' <<<"$WAITING")
TURN=$(jq -er .turnId <<<"$WAITING")
req "$API/warp-executions?status=pending_approval" "${H[@]}" | jq -c "[.data[] | select(.id == \"$WX\") | {id, warp, status}]"
req -X POST "$API/warp-executions/$WX/approve" "${H[@]}" "${J[@]}" -d '{}' | jq -c '{id, status}'
DONE=$(poll 30 '.status == "completed" or .status == "failed"' "$API/rooms/$ROOM/turns/$(jq -rn --arg t "$TURN" '$t | @uri')" "${H[@]}")
jq -c '{status, reply: .reply.content[0:100]}' <<<"$DONE"
check 'the approved turn' '.status == "completed"' "$DONE"
SECRET=$(req "$API/agents/$AGENT/secrets" "${H[@]}")
check 'the approved write' '[.data[] | select(.key == "OLD_API_KEY")] | length == 0' "$SECRET"
req -X PATCH "$API/agents/$AGENT" "${H[@]}" "${J[@]}" -d '{"mode":"auto","model":{"baseUrl":null,"name":null}}' | jq -c '{uuid, mode}'
echo "# In the Temporal UI: workflow room-$ROOM (its turns run in it) and the approval warp-$WX"
echo "OK agent walk-through: the offline default said no model is configured and ran /call, a streamed reply used a tool, the stream resumed after Last-Event-ID, and a sensitive tool call waited for approval, then ran"
