import { zodResolver } from '@hookform/resolvers/zod'
import { forgotPasswordSchema, resetPasswordSchema, signInSchema, signUpSchema } from './schemas'

/** Loaded on demand by the sign-in form (see lazy-resolver.ts); the other forms import it directly. */
export const signInResolver = zodResolver(signInSchema)
export const signUpResolver = zodResolver(signUpSchema)
export const forgotPasswordResolver = zodResolver(forgotPasswordSchema)
export const resetPasswordResolver = zodResolver(resetPasswordSchema)
