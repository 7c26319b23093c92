-- std.metasql.unparenthesize: list helpers for macros.

-- "(a, b, c)" as "a, b, c", for a place (GROUP BY, PARTITION BY, a select
-- list) that takes a bare list; "()" as nothing.
CREATE PERFETTO MACRO metasql_unparenthesize_exprlist(expr ExprList)
RETURNS UnparenExprList AS __weft_list_unparen!($expr);
