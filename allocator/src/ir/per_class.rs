//! One value per register class ([`PerClass`]), indexed by the class
//! itself: what the machine, the generator and the allocators keep for
//! each of `int`, `float` and `vector`.

use crate::ir::index::RegClass;
use std::ops::{Deref, DerefMut, Index, IndexMut};

/// A value for each register class, in [`RegClass::ALL`] order. Indexed
/// by a [`RegClass`] (or its dense index); derefs to the array, so that
/// it iterates and compares as one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PerClass<T>(pub [T; 3]);

impl<T> PerClass<T> {
    /// The value `f` gives each class.
    pub fn from_fn(mut f: impl FnMut(RegClass) -> T) -> PerClass<T> {
        PerClass(RegClass::ALL.map(&mut f))
    }

    /// Each class's value, with its class.
    pub fn iter_classes(&self) -> impl Iterator<Item = (RegClass, &T)> {
        RegClass::ALL.into_iter().zip(self.0.iter())
    }
}

impl<T: Clone> PerClass<T> {
    /// The same value for every class.
    pub fn splat(v: T) -> PerClass<T> {
        PerClass([v.clone(), v.clone(), v])
    }
}

impl<T> From<[T; 3]> for PerClass<T> {
    fn from(a: [T; 3]) -> PerClass<T> {
        PerClass(a)
    }
}

impl<T> Deref for PerClass<T> {
    type Target = [T; 3];
    fn deref(&self) -> &[T; 3] {
        &self.0
    }
}

impl<T> DerefMut for PerClass<T> {
    fn deref_mut(&mut self) -> &mut [T; 3] {
        &mut self.0
    }
}

impl<T> Index<RegClass> for PerClass<T> {
    type Output = T;
    #[inline]
    fn index(&self, c: RegClass) -> &T {
        &self.0[c.index()]
    }
}

impl<T> IndexMut<RegClass> for PerClass<T> {
    #[inline]
    fn index_mut(&mut self, c: RegClass) -> &mut T {
        &mut self.0[c.index()]
    }
}

impl<T> Index<usize> for PerClass<T> {
    type Output = T;
    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.0[i]
    }
}

impl<T> IndexMut<usize> for PerClass<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.0[i]
    }
}

impl<'a, T> IntoIterator for &'a PerClass<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut PerClass<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_and_its_index_name_the_same_value() {
        let mut p = PerClass::from_fn(|c| c.index() * 10);
        p[RegClass::Float] += 1;
        assert_eq!(p[1], 11);
        assert_eq!(p[RegClass::Vector], 20);
        let classes: Vec<RegClass> = p.iter_classes().map(|(c, _)| c).collect();
        assert_eq!(classes, RegClass::ALL);
        assert_eq!(PerClass::splat(3).iter().sum::<i32>(), 9);
    }
}
