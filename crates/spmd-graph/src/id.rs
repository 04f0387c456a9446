//! [`define_id!`]: dense `u32` index newtypes and their packed optionals.

/// Defines a dense index newtype `$name(u32)` and `$option`, an
/// `Option<$name>` packed into the same 32 bits (`u32::MAX` is the empty
/// value, which is why the id's `new` rejects
/// it). Per-item tables of optional ids (`Vec<$option>`) stay as compact
/// and as fast as the `u32` arrays with a `NONE` sentinel they replace,
/// while the type says what the entries are.
///
/// The id gets `new(usize)` (panics on `u32::MAX` and above), `index()`,
/// `as_u32()` and the usual derives; the optional gets `NONE`, `some`,
/// `get() -> Option<$name>`, `is_some`/`is_none`, `Default` (empty), and
/// conversions from `$name` and `Option<$name>`, and an order that puts
/// every id (by index) before the empty value, so a sentinel used as
/// "infinity" (`min` over optional ranks, heap keys) keeps its meaning.
/// Formatting (`Display`) is the caller's, as ids print differently.
///
/// This crate's ids ([`BlockId`](crate::BlockId), [`CycleId`](crate::CycleId),
/// ...) are made with it, and so are the `spmd` crate's own (which imports
/// it from here rather than keeping a copy).
///
/// ```
/// spmd_graph::define_id! {
///     /// A row of some table.
///     pub struct RowId;
///     /// An optional [`RowId`].
///     pub struct OptionRowId;
/// }
/// let r = RowId::new(3);
/// assert_eq!(r.index(), 3);
/// assert_eq!(OptionRowId::from(r).get(), Some(r));
/// assert!(OptionRowId::NONE.is_none());
/// assert!(OptionRowId::some(r) < OptionRowId::NONE);
/// ```
#[macro_export]
macro_rules! define_id {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident;
        $(#[$option_meta:meta])*
        $option_vis:vis struct $option:ident;
    ) => {
        $(#[$meta])*
        #[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
        $vis struct $name(u32);

        #[allow(dead_code)]
        impl $name {
            #[doc = concat!("The ", stringify!($name), " with dense index `index`. Panics if `index >= u32::MAX`.")]
            pub const fn new(index: usize) -> Self {
                assert!(index < u32::MAX as usize, concat!(stringify!($name), " index out of range"));
                $name(index as u32)
            }

            /// The dense index, usable to index per-item arrays.
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// The index as a `u32` (the storage type).
            pub const fn as_u32(self) -> u32 {
                self.0
            }
        }

        $(#[$option_meta])*
        #[doc = concat!("\n\nAn `Option<", stringify!($name), ">` in 32 bits (`u32::MAX` is `None`), ordered by index with `None` last.")]
        #[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
        $option_vis struct $option(u32);

        #[allow(dead_code)]
        impl $option {
            /// No id.
            pub const NONE: Self = $option(u32::MAX);

            /// The id `id`.
            pub const fn some(id: $name) -> Self {
                $option(id.0)
            }

            /// The id, if any.
            #[inline]
            pub const fn get(self) -> Option<$name> {
                if self.0 == u32::MAX {
                    None
                } else {
                    Some($name(self.0))
                }
            }

            /// Whether there is an id.
            #[inline]
            pub const fn is_some(self) -> bool {
                self.0 != u32::MAX
            }

            /// Whether there is no id.
            #[inline]
            pub const fn is_none(self) -> bool {
                self.0 == u32::MAX
            }
        }

        impl Default for $option {
            fn default() -> Self {
                Self::NONE
            }
        }

        impl From<$name> for $option {
            fn from(id: $name) -> Self {
                Self::some(id)
            }
        }

        impl From<Option<$name>> for $option {
            fn from(id: Option<$name>) -> Self {
                id.map_or(Self::NONE, Self::some)
            }
        }

        impl From<$option> for Option<$name> {
            fn from(id: $option) -> Self {
                id.get()
            }
        }
    };
}
