//! Typed identity keys for IR objects.
//!
//! A key names one IR object by identity, so that handles can be put in
//! hash maps and sets or sorted without comparing what they print. There
//! is one key type per kind of object: [`BlockKey`], [`OperationKey`],
//! [`ValueKey`], [`TypeKey`], [`AttributeKey`] and [`NameKey`] (an
//! identifier, such as an operation's or attribute's name). Each is made
//! by `Key::of(&handle)` and is `Copy`, `Eq`, `Ord`, `Hash` and `Debug`;
//! nothing turns a key back into a handle or an address.
//!
//! * Two keys are equal exactly when their handles name the same live
//!   object (blocks, operations, values). Types, attributes and
//!   identifiers are uniqued in their context, so their keys are equal
//!   exactly when they are the same uniqued value (the same type, the same
//!   attribute, the same name).
//! * A key outlives nothing: once the object it names is erased, a new
//!   object may be allocated at the same place and get an equal key. Keys
//!   are valid only while the objects they name live; a map keyed by them
//!   must not be consulted across an edit that erases one of its keys'
//!   objects and creates others.
//! * The order is the objects' order in memory: deterministic within one
//!   run for the same allocations, but it carries no meaning in the IR, so
//!   nothing observable may depend on it.
//!
//! Why: identity is what the transforms hash handles by (the blocks a pass
//! has seen, the values it has replaced, the operations it has visited),
//! and melior handles compare by identity but do not hash. Keys do it
//! without raw pointers outside `ir/`. The hash of a key is the hash of the
//! object's address as a `usize`, so maps keyed by keys iterate in the
//! order maps keyed by the addresses did.

use melior::ir::{
    attribute::AttributeLike, block::BlockLike, operation::OperationLike, r#type::TypeLike,
    Identifier, ValueLike,
};

/// The identity of a block.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct BlockKey(usize);

impl BlockKey {
    /// The key of `block`.
    pub fn of<'c, 'a>(block: &impl BlockLike<'c, 'a>) -> Self {
        Self::from_raw(block.to_raw())
    }

    /// The key of a raw block handle (for code of `ir/` that reads blocks
    /// through the C API).
    pub(crate) fn from_raw(raw: mlir_sys::MlirBlock) -> Self {
        Self(raw.ptr as usize)
    }
}

/// The identity of an operation.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct OperationKey(usize);

impl OperationKey {
    /// The key of `op`.
    pub fn of<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Self {
        Self(op.to_raw().ptr as usize)
    }
}

/// The identity of a value (an operation result or a block argument).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct ValueKey(usize);

impl ValueKey {
    /// The key of `value`.
    pub fn of<'c>(value: &impl ValueLike<'c>) -> Self {
        Self(value.to_raw().ptr as usize)
    }
}

/// The identity of a uniqued type: equal keys, the same type.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct TypeKey(usize);

impl TypeKey {
    /// The key of `r#type`.
    pub fn of<'c>(r#type: &impl TypeLike<'c>) -> Self {
        Self(r#type.to_raw().ptr as usize)
    }
}

/// The identity of a uniqued attribute: equal keys, the same attribute.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct AttributeKey(usize);

impl AttributeKey {
    /// The key of `attribute`.
    pub fn of<'c>(attribute: &impl AttributeLike<'c>) -> Self {
        Self(attribute.to_raw().ptr as usize)
    }
}

/// The identity of a uniqued identifier (an operation's name, an
/// attribute's name): equal keys, the same name.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) struct NameKey(usize);

impl NameKey {
    /// The key of `name`.
    pub(crate) fn of(name: &Identifier<'_>) -> Self {
        Self(name.to_raw().ptr as usize)
    }
}

/// The identity of an MLIR context: equal keys, the same context.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) struct ContextKey(usize);

impl ContextKey {
    /// The key of a raw context handle.
    pub(crate) fn from_raw(raw: mlir_sys::MlirContext) -> Self {
        Self(raw.ptr as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::WordHasher;
    use melior::{
        ir::{attribute::IntegerAttribute, r#type::IntegerType, Block, Location, Type},
        Context,
    };
    use std::hash::{Hash, Hasher};

    fn hash_of(x: impl Hash) -> u64 {
        let mut hasher = WordHasher::default();
        x.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn uniqued_objects_have_equal_keys() {
        let context = Context::new();
        let i32_a: Type = IntegerType::new(&context, 32).into();
        let i32_b: Type = IntegerType::new(&context, 32).into();
        let i64_t: Type = IntegerType::new(&context, 64).into();
        assert_eq!(TypeKey::of(&i32_a), TypeKey::of(&i32_b));
        assert_ne!(TypeKey::of(&i32_a), TypeKey::of(&i64_t));
        let one = IntegerAttribute::new(i32_a, 1);
        let also_one = IntegerAttribute::new(i32_b, 1);
        let two = IntegerAttribute::new(i32_a, 2);
        assert_eq!(AttributeKey::of(&one), AttributeKey::of(&also_one));
        assert_ne!(AttributeKey::of(&one), AttributeKey::of(&two));
        let name = Identifier::new(&context, "spmd.x");
        assert_eq!(
            NameKey::of(&name),
            NameKey::of(&Identifier::new(&context, "spmd.x"))
        );
        assert_ne!(
            NameKey::of(&name),
            NameKey::of(&Identifier::new(&context, "spmd.y"))
        );
    }

    #[test]
    fn live_objects_have_distinct_keys_hashed_as_addresses() {
        let context = Context::new();
        let i32_t: Type = IntegerType::new(&context, 32).into();
        let location = Location::unknown(&context);
        let first = Block::new(&[(i32_t, location), (i32_t, location)]);
        let second = Block::new(&[]);
        assert_eq!(BlockKey::of(&first), BlockKey::of(&first));
        assert_ne!(BlockKey::of(&first), BlockKey::of(&second));
        assert_eq!(
            BlockKey::of(&first),
            BlockKey::from_raw(BlockLike::to_raw(&first))
        );
        let a = first.argument(0).unwrap();
        let b = first.argument(1).unwrap();
        assert_eq!(ValueKey::of(&a), ValueKey::of(&first.argument(0).unwrap()));
        assert_ne!(ValueKey::of(&a), ValueKey::of(&b));
        // The hash is the address's, so iteration orders stay as they were.
        let address = BlockLike::to_raw(&first).ptr as usize;
        assert_eq!(hash_of(BlockKey::of(&first)), hash_of(address));
        assert_eq!(
            hash_of((BlockKey::of(&first), 3usize)),
            hash_of((address, 3usize))
        );
    }
}
