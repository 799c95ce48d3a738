-- Devin CLI's sessions.db tables and one session, as kenn-io/agentsview's internal/parser/test_helpers_test.go
-- (devinSyntheticSessionsSchema, devinSyntheticMessageNodesSchema) and devin_test.go
-- (TestParseDevinSessionFallsBackToMessageNodes' rows) write them (MIT); the hidden session is from its
-- TestListDevinSessionMeta. tests/sources/test_devin.py loads this into a cli/sessions.db.
CREATE TABLE sessions (
	id TEXT PRIMARY KEY,
	title TEXT,
	working_directory TEXT,
	model TEXT,
	created_at INTEGER,
	last_activity_at INTEGER,
	workspace_json TEXT,
	metadata_json TEXT,
	hidden INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE message_nodes (
	row_id INTEGER PRIMARY KEY AUTOINCREMENT,
	session_id TEXT NOT NULL,
	node_id INTEGER NOT NULL,
	parent_node_id INTEGER,
	chat_message TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	metadata TEXT
);
INSERT INTO sessions (id, title, working_directory, model, created_at, last_activity_at)
VALUES ('session-db-only', 'DB only session', '/tmp/db-only-project', 'db-only-model', 1704103200, 1704103209);
INSERT INTO sessions (id, title, working_directory, model, created_at, last_activity_at, hidden)
VALUES ('session-hidden', 'Hidden', '/cwd/hidden', 'model-hidden', 1700000010, 1700000090, 1);
INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at)
VALUES ('session-db-only', 1, NULL, '{"role":"user","content":"Recover from SQLite fallback"}', 1704103201);
INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at)
VALUES ('session-db-only', 2, 1, '{"role":"assistant","content":"I''ll use the database transcript fallback.","thinking":"checking message_nodes","tool_calls":[{"id":"call-1","function":{"name":"read_file","arguments":"{\"file_path\":\"main.go\"}"}}]}', 1704103205);
INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at)
VALUES ('session-db-only', 3, 2, '{"role":"tool","content":"package main\n","tool_call_id":"call-1"}', 1704103207);
INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message, created_at)
VALUES ('session-hidden', 1, NULL, '{"role":"user","content":"never shown"}', 1700000011);
