"""Identifiers that enter SQL text are quoted, so a name cannot end the identifier and start SQL."""
import duckdb
import pytest

from core.db.sqltext import ident, int_list, statement


def test_ident_doubles_quotes_and_rejects_empty():
    assert ident("runs") == '"runs"'
    assert ident('a"b') == '"a""b"'
    with pytest.raises(ValueError):
        ident("")


def test_a_hostile_table_name_is_one_identifier_in_duckdb():
    con = duckdb.connect()
    name = 'x"; DROP TABLE keep; --'
    con.execute("CREATE TABLE keep AS SELECT 1 AS v")
    con.execute(statement("CREATE TABLE {t} AS SELECT 2 AS v", t=name))
    assert con.execute(statement("SELECT v FROM {t}", t=name)).fetchall() == [(2,)]
    assert con.execute("SELECT v FROM keep").fetchall() == [(1,)]


def test_int_list_accepts_only_integers():
    assert statement("SELECT * FROM {t} WHERE id IN ({ids})", t="r", ints={"ids": [3, "4"]}) == \
        'SELECT * FROM "r" WHERE id IN (3, 4)'
    assert int_list([]) == "NULL"
    with pytest.raises(ValueError):
        int_list(["1); DROP TABLE runs; --"])


def test_a_failing_statement_in_a_transaction_raises_its_own_error_not_the_unregister_one():
    import duckdb
    import pyarrow as pa

    from core.db.sqltext import registered, statement
    con = duckdb.connect()
    con.execute("BEGIN")
    with pytest.raises(duckdb.ConversionException):
        with registered(con, pa.table({"x": ["not a number"]})) as name:
            con.execute(statement("SELECT CAST(x AS INTEGER) FROM {t}", t=name)).fetchall()
    con.execute("ROLLBACK")
    with registered(con, pa.table({"x": [1, 2]})) as name:
        assert con.execute(statement("SELECT sum(x) FROM {t}", t=name)).fetchall() == [(3,)]
    assert name not in {r[0] for r in con.execute("SELECT view_name FROM duckdb_views()").fetchall()}
