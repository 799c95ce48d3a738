"""The SQL a team store's rules install (sessionscope.safety.team runs it at `team init`): the audit log's guard, and the
functions of the tables' owner that members call (search, usage, keys, the member's redaction key, a file's
content). Each `{schema}`, `{member}`, `{visible}` and `{tables}` is filled in by `team.init`."""

AUDIT_GUARD = """
CREATE OR REPLACE FUNCTION sessionscope_audit_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.actor IS DISTINCT FROM session_user::text THEN
      BEGIN  -- the client's word for itself ($USER@host, the front end), kept beside the login
        NEW.detail := jsonb_set(coalesce(nullif(NEW.detail, ''), '{}')::jsonb, '{client}',
                                to_jsonb(coalesce(NEW.actor, '')))::text;
      EXCEPTION WHEN others THEN NULL;  -- a detail that is not a JSON object is kept as it came
      END;
    END IF;
    NEW.actor := session_user;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'the audit log takes inserts only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
DROP TRIGGER IF EXISTS audit_actor ON audit;
CREATE TRIGGER audit_actor BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION sessionscope_audit_guard();
DROP TRIGGER IF EXISTS audit_append_only ON audit;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit
  FOR EACH ROW EXECUTE FUNCTION sessionscope_audit_guard();
DROP TRIGGER IF EXISTS audit_no_truncate ON audit;
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
  FOR EACH STATEMENT EXECUTE FUNCTION sessionscope_audit_guard();
"""

# Text search under the rules. PostgreSQL applies a row rule before any condition of the query whose function is
# not "leakproof", and the text match (`@@`) is not: a member's search walked every event the rule let through and
# matched each (1.2 s for a rare word in a million events) instead of asking the text index. This function, the
# tables' owner's (whom the rules do not bind), asks the index, keeps the matches this login may read by the same
# read rule, and gives the newest `cap` of them; the caller's own query, under the rules, does the rest.
SEARCH_FUNCTION = """
CREATE OR REPLACE FUNCTION sessionscope_matching(q tsquery, cap integer) RETURNS SETOF integer
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
BEGIN
  -- planned for this word (EXECUTE): a common one walks down the newest events, a rare one asks the index
  IF sessionscope_is_admin() THEN
    RETURN QUERY EXECUTE 'SELECT e.pk FROM event e WHERE e.fts @@ $1 ORDER BY e.pk DESC LIMIT $2' USING q, cap;
  ELSE
    RETURN QUERY EXECUTE
      'SELECT e.pk FROM event e WHERE e.fts @@ $1 AND EXISTS (SELECT 1 FROM session s WHERE s.id = e.session_id '
      'AND ({visible})) ORDER BY e.pk DESC LIMIT $2' USING q, cap;
  END IF;
END $$;
REVOKE ALL ON FUNCTION sessionscope_matching(tsquery, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION sessionscope_matching(tsquery, integer) TO {member};
"""

# The keys a member's rows take (#58): a member holds no right on the store's sequences (with UPDATE one `setval`
# back to 1 made every other member's next import fail on a duplicate key; with SELECT or USAGE pg_sequences told the
# store's row counts). Keys are taken through these functions of the tables' owner, which only ever move a sequence
# forward: a column's default, a bulk insert's block of keys (sessionscope.store.keys.reserve_keys), the largest key given
# (keys.last_key_sql) and moving past keys a caller numbered itself (numbered.insert_numbered).
KEY_FUNCTIONS = """
CREATE OR REPLACE FUNCTION sessionscope_key_sequence(t text, c text) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
DECLARE s text;
BEGIN
  IF t <> ALL (ARRAY[{tables}]) THEN
    RAISE EXCEPTION 'no keys of table % are handed out', t USING ERRCODE = 'insufficient_privilege';
  END IF;
  s := pg_get_serial_sequence(t, c);
  IF s IS NULL THEN
    RAISE EXCEPTION '%.% takes no keys from a sequence', t, c USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN s;
END $$;
CREATE OR REPLACE FUNCTION sessionscope_take_keys(t text, c text, n integer) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
DECLARE s text := sessionscope_key_sequence(t, c); first bigint; last bigint;
BEGIN
  IF n < 1 OR n > 10000000 THEN
    RAISE EXCEPTION 'a block of % keys is not handed out', n USING ERRCODE = 'invalid_parameter_value';
  END IF;
  first := nextval(s);
  IF n > 1 THEN
    EXECUTE format('SELECT last_value FROM %s', s) INTO last;
    PERFORM setval(s, greatest(first + n - 1, last));
  END IF;
  RETURN first;
END $$;
CREATE OR REPLACE FUNCTION sessionscope_last_key(t text, c text) RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
DECLARE v bigint;
BEGIN
  EXECUTE format('SELECT last_value FROM %s', sessionscope_key_sequence(t, c)) INTO v;
  RETURN v;
END $$;
CREATE OR REPLACE FUNCTION sessionscope_keys_past(t text, c text, k bigint) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
DECLARE s text := sessionscope_key_sequence(t, c); v bigint;
BEGIN
  EXECUTE format('SELECT last_value FROM %s', s) INTO v;
  IF k > v THEN PERFORM setval(s, k); END IF;
END $$;
CREATE OR REPLACE FUNCTION sessionscope_nextval(s regclass) RETURNS bigint
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$ SELECT nextval(s) $$;
REVOKE ALL ON FUNCTION sessionscope_key_sequence(text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION sessionscope_take_keys(text, text, integer) FROM PUBLIC;
REVOKE ALL ON FUNCTION sessionscope_last_key(text, text) FROM PUBLIC;
REVOKE ALL ON FUNCTION sessionscope_keys_past(text, text, bigint) FROM PUBLIC;
REVOKE ALL ON FUNCTION sessionscope_nextval(regclass) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION sessionscope_take_keys(text, text, integer) TO {member};
GRANT EXECUTE ON FUNCTION sessionscope_last_key(text, text) TO {member};
GRANT EXECUTE ON FUNCTION sessionscope_keys_past(text, text, bigint) TO {member};
GRANT EXECUTE ON FUNCTION sessionscope_nextval(regclass) TO {member};
"""


# The redaction's placeholder key (#58): the store's own (`redaction.key`) is read by its owner and admins alone; a
# member's placeholders are made under a key of their own, derived from it and their login by this function of the
# owner's (which also makes the store's key when there is none yet: a member's first export or `mcp` needs no admin).
# A member can neither read the store's key nor make another member's placeholders.
MEMBER_KEY_FUNCTION = """
CREATE OR REPLACE FUNCTION sessionscope_member_key() RETURNS text
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
DECLARE k text;
BEGIN
  SELECT value INTO k FROM setting WHERE key = 'redaction.key';
  IF k IS NULL THEN
    k := encode(sha256(convert_to(gen_random_uuid()::text || clock_timestamp()::text || random()::text, 'UTF8'))
                || sha256(convert_to(gen_random_uuid()::text || random()::text, 'UTF8')), 'hex');
    INSERT INTO setting (key, value) VALUES ('redaction.key', k) ON CONFLICT (key) DO NOTHING;
    SELECT value INTO k FROM setting WHERE key = 'redaction.key';
  END IF;
  RETURN encode(sha256(decode(k, 'hex') || convert_to('member:' || session_user, 'UTF8')), 'hex');
END $$;
REVOKE ALL ON FUNCTION sessionscope_member_key() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION sessionscope_member_key() TO {member};
"""
SECRET_SETTINGS = ("redaction.key",)

# A file's content (#58): keyed by the SHA-256 of its bytes, and a member could insert a row under any hash with other
# bytes — readers saw it as damaged, and the owner of the real content could no longer store it (the key was taken).
# A member stores one only through this function of the owner's, which checks the bytes against the hash (kept
# uncompressed, so PostgreSQL can check them; the server's own TOAST compression still applies).
BLOB_FUNCTION = """
CREATE OR REPLACE FUNCTION sessionscope_put_blob(h text, n bigint, d bytea) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $$
BEGIN
  IF encode(sha256(d), 'hex') <> h OR length(d) <> n THEN
    RAISE EXCEPTION 'a file content whose bytes do not match its hash %', left(h, 12)
      USING ERRCODE = 'check_violation';
  END IF;
  INSERT INTO file_blob (hash, size, codec, data) VALUES (h, n, 'raw', d) ON CONFLICT (hash) DO NOTHING;
END $$;
REVOKE ALL ON FUNCTION sessionscope_put_blob(text, bigint, bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION sessionscope_put_blob(text, bigint, bytea) TO {member};
"""


# Usage over every session a member may read, in one pass: under the rules each cache row was checked against its
# session one by one (a quarter of a second for 35,000); here the sessions are checked once each, by the same rule
USAGE_FUNCTION = """
CREATE OR REPLACE FUNCTION sessionscope_usage() RETURNS TABLE (session_id text, last_seq integer,
  cached_seq integer, usage bytea, project text, kind text, person text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = {schema}, pg_temp AS $fn$
BEGIN
  RETURN QUERY EXECUTE
    'SELECT s.id::text, s.last_seq, c.last_seq, c.rows, s.project::text, src.kind::text, '
    'coalesce(nullif(s.owner, ''''), s.imported_by)::text FROM session s '
    'LEFT JOIN usage_cache c ON c.session_id = s.id LEFT JOIN source src ON src.id = s.source_id'
    || CASE WHEN sessionscope_is_admin() THEN '' ELSE ' WHERE {visible}' END;
END $fn$;
REVOKE ALL ON FUNCTION sessionscope_usage() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION sessionscope_usage() TO {member};
"""
