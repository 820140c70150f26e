//! Browser plumbing every page may use and that knows no page: the link, storage, the Web
//! Worker (and staged jobs run in it) and the hooks over media queries and on-screen observation.

pub mod hooks;
pub mod staged;
pub mod storage;
pub mod url;
pub mod worker;
