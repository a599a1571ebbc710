//! Reading a `package.py` once: the text and its syntax tree
//! (`parsed::Parsed`), which every later step walks by node.

pub(crate) mod parsed;
