"""End-to-end: --add-sql-package / --override-sql-package PATH[@PACKAGE]
(trace_processor_shell's flags): .sql files under a directory written here
become PerfettoSQL modules, in every mode that loads a trace, and each way
a package can be refused fails with a clear message."""
import os

import weft_e2e as e
from test_rpc import Server

TRACE = '[{"ph":"X","pid":1,"tid":2,"ts":100,"dur":50,"name":"foo"}]'


class SqlPackageTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.write_temp(self.dir, 't.json', TRACE)
        self.pkg = self.package('mypkg', {
            'a.sql': 'CREATE PERFETTO TABLE pkg_a AS SELECT 1 AS x;',
            'sub/deep/b.sql': 'INCLUDE PERFETTO MODULE mypkg.a;\n'
                              'CREATE PERFETTO VIEW pkg_b AS SELECT x + 1 AS y FROM pkg_a;',
            'readme.txt': 'not sql',
            'UPPER.SQL': 'SELECT 1;',
            'a.b.sql': 'CREATE PERFETTO TABLE dotted AS SELECT 1 AS d;',
            '.hidden.sql': 'SELECT 1;',
            'with.dot/c.sql': 'SELECT 1;',
            'bad.sql': 'SELECT * FROM no_such_table;',
        })

    def package(self, name, files):
        root = os.path.join(self.dir, name)
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'w') as f:
                f.write(text)
        os.makedirs(root, exist_ok=True)
        return root

    def q(self, sql, *flags):
        return e.query(sql, self.trace, options=flags)

    def fails(self, sql, *flags):
        rc, out, err = e.run(*flags, '-Q', sql, self.trace)
        self.assertNotEqual(rc, 0, out)
        return err

    def test_modules_are_named_by_relative_path(self):
        self.assertEqual(self.q('INCLUDE PERFETTO MODULE mypkg.sub.deep.b; SELECT * FROM pkg_b',
                                '--add-sql-package', self.pkg), '"y"\n2\n')
        # PATH@NAME renames the package; a trailing slash and a dotted name
        # are fine; the name follows the last '@'.
        self.assertEqual(self.q('INCLUDE PERFETTO MODULE my.pkg.a; SELECT * FROM pkg_a',
                                '--add-sql-package', self.pkg + '/@my.pkg'), '"x"\n1\n')
        self.assertEqual(self.q('INCLUDE PERFETTO MODULE mypkg.a; SELECT * FROM pkg_a',
                                '--add-sql-package', self.pkg + '@'), '"x"\n1\n')

    def test_wildcard_includes_the_package(self):
        self.assertEqual(self.q('INCLUDE PERFETTO MODULE mypkg.sub.*; SELECT * FROM pkg_b',
                                '--add-sql-package', self.pkg), '"y"\n2\n')

    def test_skipped_files_are_not_modules(self):
        flags = ('--add-sql-package', self.pkg)
        for module in ('mypkg.readme', 'mypkg.UPPER', 'mypkg.a.b', 'mypkg.with.dot.c'):
            self.assertIn("INCLUDE: unknown module '%s'" % module,
                          self.fails('INCLUDE PERFETTO MODULE %s' % module, *flags))
        self.assertIn("INCLUDE: Package 'other.a' not found",
                      self.fails('INCLUDE PERFETTO MODULE other.a', *flags))

    def test_module_error_names_the_module(self):
        err = self.fails('INCLUDE PERFETTO MODULE mypkg.bad', '--add-sql-package', self.pkg)
        self.assertIn('  File "stdin" line 1 col 1\n    INCLUDE PERFETTO MODULE mypkg.bad\n'
                      '    ^\n  Module include "mypkg.bad" line 1 col 1\n', err)
        self.assertIn('no such table: no_such_table', err)

    def test_name_collisions(self):
        err = self.fails('SELECT 1', '--add-sql-package', self.pkg + '@std')
        self.assertIn("Couldn't add SQL package: Package 'std' is already registered", err)
        err = self.fails('SELECT 1', '--add-sql-package', self.pkg,
                         '--add-sql-package', self.pkg)
        self.assertIn("Package 'mypkg' is already registered", err)
        err = self.fails('SELECT 1', '--add-sql-package', self.pkg + '@slices.mine')
        self.assertIn("Package 'slices.mine' clashes with existing package 'slices'. "
                      "Package names cannot be prefixes of each other.", err)
        err = self.fails('SELECT 1', '--add-sql-package', self.pkg + '@my',
                         '--add-sql-package', self.pkg + '@my.pkg')
        self.assertIn("Package 'my.pkg' clashes with existing package 'my'", err)
        # A shared prefix without a dot is no clash.
        self.assertEqual(self.q('SELECT 1 AS v', '--add-sql-package', self.pkg + '@sli'),
                         '"v"\n1\n')

    def test_override_replaces_the_whole_package(self):
        flags = ('--override-sql-package', self.pkg + '@slices')
        self.assertEqual(self.q('INCLUDE PERFETTO MODULE slices.a; SELECT * FROM pkg_a',
                                *flags), '"x"\n1\n')
        self.assertIn("INCLUDE: unknown module 'slices.with_context'",
                      self.fails('INCLUDE PERFETTO MODULE slices.with_context', *flags))
        # Overrides are applied before the added packages.
        err = self.fails('SELECT 1', '--add-sql-package', self.pkg,
                         '--override-sql-package', self.pkg)
        self.assertIn("Couldn't add SQL package: Package 'mypkg' is already registered",
                      err)
        err = self.fails('SELECT 1', '--override-sql-package', self.pkg + '@slices.x')
        self.assertIn("Couldn't override stdlib package: Package 'slices.x' clashes", err)

    def test_empty_directory_registers_nothing(self):
        empty = self.package('empty', {})
        flags = ('--add-sql-package', empty, '--add-sql-package', empty + '@std')
        self.assertIn("INCLUDE: Package 'empty.x' not found",
                      self.fails('INCLUDE PERFETTO MODULE empty.x', *flags))

    def test_bad_paths_fail_naming_the_path(self):
        missing = os.path.join(self.dir, 'nowhere')
        err = self.fails('SELECT 1', '--add-sql-package', missing)
        self.assertIn("Couldn't add SQL package: Directory %s does not exist." % missing, err)
        err = self.fails('SELECT 1', '--add-sql-package', os.path.join(self.pkg, 'a.sql'))
        self.assertIn('a.sql is not a directory', err)
        broken = os.path.join(self.pkg, 'broken.sql')
        os.symlink(os.path.join(self.dir, 'gone'), broken)
        err = self.fails('SELECT 1', '--add-sql-package', self.pkg)
        self.assertIn("Cannot read file '%s'" % broken, err)
        os.unlink(broken)
        os.mkfifo(os.path.join(self.pkg, 'fifo.sql'))
        err = self.fails('SELECT 1', '--add-sql-package', self.pkg)
        self.assertIn("fifo.sql': not a regular file", err)

    def test_symlink_loop_is_bounded(self):
        os.symlink(self.pkg, os.path.join(self.pkg, 'loop'))
        err = self.fails('SELECT 1', '--add-sql-package', self.pkg)
        self.assertIn('directories nested deeper than 32', err)

    def test_every_loading_mode(self):
        flags = ('--add-sql-package', self.pkg)
        sql = 'INCLUDE PERFETTO MODULE mypkg.a; SELECT x FROM pkg_a'
        rc, out, err = e.run('query', *flags, self.trace, sql)
        self.assertEqual((rc, out), (0, '"x"\n1\n'), err)
        rc, out, err = e.run(*flags, self.trace, stdin=(sql + ';\n').encode())
        self.assertEqual(rc, 0, err)
        self.assertIn('1', out)
        rc, out, err = e.run('interactive', *flags, self.trace, stdin=(sql + ';\n').encode())
        self.assertEqual(rc, 0, err)
        self.assertIn('1', out)
        rc, out, err = e.run('query', '--add-sql-package', self.pkg + '@std', self.trace, sql)
        self.assertNotEqual(rc, 0)
        self.assertIn("Package 'std' is already registered", err)
        srv = Server('-D', *flags)
        try:
            srv.load(TRACE.encode())
            columns, rows, error, _ = srv.query(sql)
            self.assertEqual((columns, rows, error), (['x'], [(1,)], None))
        finally:
            srv.stop()

    def test_help_names_the_flags(self):
        rc, out, _ = e.run('--help')
        self.assertEqual(rc, 0)
        self.assertIn('--add-sql-package PATH[@PACKAGE]', out)
        self.assertIn('--override-sql-package PATH[@PACKAGE]', out)


if __name__ == '__main__':
    e.main()
