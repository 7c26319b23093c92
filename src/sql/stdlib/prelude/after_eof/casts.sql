-- Casts for PerfettoSQL's types, as macros so that they cost nothing at
-- run time.

-- |value| as an INT.
CREATE PERFETTO MACRO cast_int(value Expr)
RETURNS Expr AS CAST($value AS INT);

-- |value| as a DOUBLE.
CREATE PERFETTO MACRO cast_double(value Expr)
RETURNS Expr AS CAST($value AS REAL);

-- |value| as a STRING.
CREATE PERFETTO MACRO cast_string(value Expr)
RETURNS Expr AS CAST($value AS TEXT);
