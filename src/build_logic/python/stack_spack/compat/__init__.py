"""Older module spellings of the package API (`spack.util.environment`,
`llnl.util.filesystem`, …) that package files still import."""
